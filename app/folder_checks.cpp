#include "app/folder_checks.h"

#include <algorithm>

#include "common/gpu.h"
#include "workloads/problem.h"

namespace lb {

FolderCheckReport check_folder_before_cases(const FolderWorkload& w, const std::vector<PlannedSize>& sizes,
                                            std::uint64_t run_seed, double reference_budget) {
  FolderCheckReport report;
  const DeviceLimits limits = device_limits();
  w.check_launches(limits.block);
  const PlannedSize* smallest = nullptr;
  for (const PlannedSize& size : sizes) {
    w.check_size(size.shape, limits.grid);
    report.sizes_checked.push_back(w.size_label(size.shape));
    if (!size.does_not_fit.empty()) {
      report.skipped.push_back(w.size_label(size.shape) + ": " + size.does_not_fit);
      continue;
    }
    if (!smallest || w.host_bytes(size.shape) < w.host_bytes(smallest->shape)) smallest = &size;
  }
  if (!smallest) return report;
  w.check_reference(smallest->shape, case_seed(run_seed, w, smallest->shape));
  report.reference_sizes.push_back(w.size_label(smallest->shape));
  for (const PlannedSize& size : sizes) {
    if (!size.does_not_fit.empty() || size.shape == smallest->shape) continue;
    const std::string label = w.size_label(size.shape);
    if (std::find(report.reference_sizes.begin(), report.reference_sizes.end(), label) != report.reference_sizes.end() ||
        std::find(report.reference_not_run.begin(), report.reference_not_run.end(), label) != report.reference_not_run.end())
      continue;
    if (w.host_bytes(size.shape) > reference_budget) {
      report.reference_not_run.push_back(label);
      continue;
    }
    w.check_reference(size.shape, case_seed(run_seed, w, size.shape));
    report.reference_sizes.push_back(label);
  }
  return report;
}

void check_folders_of_plan(const SuitePlan& plan, std::uint64_t run_seed) {
  for (const auto& [workload, sizes] : plan.sizes)
    if (const auto* folder = dynamic_cast<const FolderWorkload*>(workload)) check_folder_before_cases(*folder, sizes, run_seed);
}

}  // namespace lb
