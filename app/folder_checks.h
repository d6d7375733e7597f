// What `list --workload-dir` and `run --workload-dir` check of a workload folder before any case,
// without timing (docs/your-own-workload.md, section 6): the same checks, so that a folder `list`
// accepts is one `run` starts.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/plan.h"
#include "workloads/folder/folder_workload.h"

namespace lb {

// What the checks found that is not bad input, for `list` to say.
struct FolderCheckReport {
  std::vector<std::string> sizes_checked;  // each size's label, in order
  std::vector<std::string> reference_sizes;  // where inputs, reference and tolerance ran (none: no size fits)
  std::vector<std::string> reference_not_run;  // sizes that fit where they did not run (above the budget)
  std::vector<std::string> skipped;        // "LABEL: does not fit ..." for each size that cannot run
};

// Each kernel's launch against its __launch_bounds__, registers and shared memory and the device's
// limits, or sm_90's without a GPU (FolderWorkload::check_launches). At every size of `sizes`:
// workload.json evaluated (FolderWorkload::check_size: extents, range
// bounds, each kernel's grid against the device's limits, or CUDA's documented ones without a GPU,
// bytes and flops). At the smallest size that fits, and at every other size that fits whose host
// memory (FolderWorkload::host_bytes) is at most `reference_budget` bytes: inputs.py (if any) called,
// reference.py's reference and tolerance called on the problem drawn there, each result checked
// (its shape, float64, finite; the tolerance finite and positive). UsageError
// (one line naming the file, the field and the size) for the first that fails. Nothing is drawn at
// a size that does not fit, and no size other than `sizes` is tried.
FolderCheckReport check_folder_before_cases(const FolderWorkload& w, const std::vector<PlannedSize>& sizes,
                                            std::uint64_t run_seed, double reference_budget = 0);

// `list`'s budget for the reference: it runs at every size that fits whose problem takes at most this
// much host memory (and at the smallest in any case); `list` names the sizes above it.
inline constexpr double kListReferenceBudget = 512.0 * 1024 * 1024;

// The folder workloads of `plan`, each checked at the sizes the plan gives it (SuitePlan::sizes: the
// sizes asked for, or its defaults; whether or not a layer here runs them).
void check_folders_of_plan(const SuitePlan& plan, std::uint64_t run_seed);

}  // namespace lb
