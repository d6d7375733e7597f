// What a runner does unless it says otherwise (lab/runners/runner.h): a runner that times one
// kernel against the lab's baseline layer's, read against the GPU's ceilings and peaks.
#include <nlohmann/json.hpp>

#include "harness/device_peaks.h"
#include "lab/child/child_process.h"
#include "lab/grading/grading.h"
#include "lab/runners/runner.h"

#include <cstdio>
#include "lab/spec/lab_spec.h"

namespace lb::lab {

std::string Runner::arguments_error(const std::vector<BoundArgument>&) const { return {}; }

ArrivalClock Runner::arrival_clock(ChildMode) const { return ArrivalClock::kSleep; }

std::shared_ptr<ChildNotes> Runner::child_notes(ChildMode) const { return nullptr; }

std::filesystem::path Runner::student_executable() const { return std::filesystem::read_symlink("/proc/self/exe"); }

std::string Runner::why_not_profiled(const LabSpec&, const std::filesystem::path&) const { return {}; }

int Runner::run_helper(const std::vector<std::string>&) const {
  std::fprintf(stderr, "layerbench lab run-helper: error: the %s runner starts no helper process\n", name().c_str());
  return 2;
}

std::vector<std::string> Runner::timing_feedback(const LabSpec&, const ChildReport&, const Grade&) const { return {}; }

std::string Runner::compile_failed_rule(const std::string& file_name) const {
  return "compile error (the check compiles " + file_name +
         " alone, as device code: no host code, no host headers, no library calls)";
}

Ceiling Runner::ceiling(const LabSpec& spec, const std::optional<TimingEnvironment>& environment) const {
  using nlohmann::json;
  const json ceilings = environment && environment->ceilings.is_object() ? environment->ceilings : json::object();
  if (spec.workload->figure() == Figure::kCompute)
    return {"cuBLAS SGEMM", "GFLOP/s", ceilings.value("sgemm_gflops", 0.0)};
  return {"copy bandwidth", "GB/s", ceilings.value("copy_gbps", 0.0)};
}

// The child times with the L2 flushed (cold); an environment line that does not say so is held to
// the hot bound, the looser one.
RateLimit Runner::rate_limit(const LabSpec& spec, const std::string& label,
                             const std::optional<TimingEnvironment>& environment) const {
  const Figure figure = spec.workload->figure();
  const std::optional<DevicePeaks> peaks = peaks_from_json(environment ? environment->peaks : nlohmann::json());
  if (!peaks) return RateLimit::unchecked(figure, "the environment child reported no peaks of its GPU");
  for (const Shape& shape : spec.benchmark_sizes)
    if (spec.workload->size_label(shape) == label)
      return lb::rate_limit(*spec.workload, shape, *peaks, environment->cache_mode == "cold");
  return RateLimit::unchecked(figure, "not one of the lab's benchmark sizes");
}

std::string Runner::environment_refusal(const LabSpec& spec,
                                        const std::optional<TimingEnvironment>& environment) const {
  if (!environment) return "no environment line";
  if (!peaks_from_json(environment->peaks)) return "an environment without the GPU's peaks (no rate could be bounded)";
  const Ceiling limit = ceiling(spec, environment);
  if (!(limit.value > 0)) return "an environment without the GPU's " + limit.what;
  return unchecked_size_refusal(spec, environment);
}

std::string Runner::unchecked_size_refusal(const LabSpec& spec,
                                           const std::optional<TimingEnvironment>& environment) const {
  // Some peaks are not every peak: matmul needs the fp32 one, a bandwidth lab a DRAM peak that
  // bounds its working set (not on an integrated GPU, nor where the working set fits in the L2).
  // A size without a limit would be graded on a rate nothing bounds.
  for (const Shape& shape : spec.benchmark_sizes) {
    const std::string label = spec.workload->size_label(shape);
    const RateLimit limit = rate_limit(spec, label, environment);
    if (!limit.checked())
      return "an environment that leaves the speed limit at " + label + " unchecked: " + limit.not_checked;
  }
  return {};
}

std::string Runner::what_ours_is(const LabSpec& spec) const {
  return "ours (the " + (spec.baseline ? spec.baseline->name : std::string("baseline")) + " layer)";
}

}  // namespace lb::lab
