#include "harness/verify.h"

#include <chrono>

#include "common/elapsed.h"
#include "workloads/problem.h"

namespace lb {

VerifiedRun verified_run(Variant& variant, const Workload& workload, const HostProblem& problem, HostBuffer& result,
                         cudaStream_t stream, bool copies_count) {
  result.resize(static_cast<std::size_t>(workload.output_elements(problem.shape)));
  fill_nan(result);
  VerifiedRun run;
  auto t0 = std::chrono::steady_clock::now();
  variant.upload(problem, stream);
  if (!copies_count) t0 = std::chrono::steady_clock::now();
  variant.run(stream);  // CPU layers compute here, synchronously
  const double run_ms = ms_since(t0);
  variant.download(result, stream);
  run.end_to_end_ms = copies_count ? ms_since(t0) : run_ms;
  run.verdict = workload.verify(problem, result);
  return run;
}

}  // namespace lb
