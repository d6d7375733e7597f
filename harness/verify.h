// The verified run of a case: the one check every result passes, the same for the harness (once
// per case, before it is timed) and for the tests.
#pragma once
#include <cuda_runtime.h>

#include "variants/variant.h"
#include "workloads/workload.h"

namespace lb {

struct VerifiedRun {
  Verdict verdict;
  double end_to_end_ms = 0;  // host clock: upload + run + download, or run alone (see below)
};

// The output starts poisoned (problem.output, uploaded; NaN in `result` too), so an element nothing
// writes fails. Then upload, run, download into `result` (resized to the workload's output), and
// the workload's check against its double-precision reference. `copies_count`: whether upload and
// download are part of the job (GPU layers) or only stage the poison and the result for the check,
// which a CPU program would not do (CPU layers); end_to_end_ms includes them only in the first case.
VerifiedRun verified_run(Variant& variant, const Workload& workload, const HostProblem& problem, HostBuffer& result,
                         cudaStream_t stream, bool copies_count);

}  // namespace lb
