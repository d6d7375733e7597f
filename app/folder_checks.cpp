#include "app/folder_checks.h"

#include "common/gpu.h"
#include "workloads/problem.h"

namespace lb {

FolderCheckReport check_folder_before_cases(const FolderWorkload& w, const std::vector<PlannedSize>& sizes,
                                            std::uint64_t run_seed) {
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
  if (smallest) {
    w.check_reference(smallest->shape, case_seed(run_seed, w, smallest->shape));
    report.reference_size = w.size_label(smallest->shape);
  }
  return report;
}

void check_folders_of_plan(const SuitePlan& plan, std::uint64_t run_seed) {
  for (const auto& [workload, sizes] : plan.sizes)
    if (const auto* folder = dynamic_cast<const FolderWorkload*>(workload)) check_folder_before_cases(*folder, sizes, run_seed);
}

}  // namespace lb
