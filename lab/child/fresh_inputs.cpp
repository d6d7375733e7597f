#include "lab/child/fresh_inputs.h"

#include "harness/clocks.h"
#include "workloads/fill_random.h"
#include "workloads/problem.h"

namespace lb::lab {
namespace {

constexpr std::uint64_t kVerifyStream = 0xC4EC4ull;  // random_scalar's streams for "verify sample i"
constexpr std::uint64_t kSampleStream = 0xF2E54ull;  // mixed into the grade's seed for samples' seeds

}  // namespace

std::uint64_t FreshInputs::sample_seed(std::uint64_t seed, const Workload& workload, const Shape& shape,
                                       std::size_t index) {
  return random_draw::mix(case_seed(seed ^ kSampleStream, workload, shape) ^
                          random_draw::mix(static_cast<std::uint64_t>(index)));
}

FreshInputs::FreshInputs(const Workload& workload, const Shape& shape, std::uint64_t seed, StudentVariant& variant,
                         cudaStream_t stream)
    : workload_(workload), shape_(shape), seed_(seed), variant_(variant), buffers_(variant.device_buffers()) {
  // One refresh timed on the device (the first sample's: before_sample(0) draws it again).
  const auto clock = make_sample_clock(true, stream);
  clock->start();
  refresh(0, stream);
  refresh_ms_ = clock->stop_ms();
}

void FreshInputs::refresh(std::size_t index, cudaStream_t stream) {
  const float alpha = recipe_on_device(workload_, shape_, sample_seed(seed_, workload_, shape_, index),
                                       buffers_.inputs, buffers_.output, stream);
  variant_.set_scalar(alpha);
}

void FreshInputs::before_sample(std::size_t index, cudaStream_t stream) { refresh(index, stream); }

void FreshInputs::after_sample(std::size_t index, bool last, cudaStream_t stream) {
  // About one sample in 16, chosen from the secret seed, up to kMaxRandomChecks; and the last.
  const bool drawn = random_scalar(seed_, kVerifyStream + index, 0.0f, 16.0f) < 1.0f && random_checks_ < kMaxRandomChecks;
  if (!drawn && !last) return;
  random_checks_ += drawn;
  ++verified_;
  const std::string which = "timed sample " + std::to_string(index + 1) + (last ? " (the last)" : "");
  if (const std::int64_t past_end = variant_.first_write_past_end(stream); past_end >= 0)
    throw WrongTimedResult(which + " wrote past the end of its output (" + std::to_string(past_end) +
                           " elements past it)");
  HostBuffer result(static_cast<std::size_t>(workload_.output_elements(shape_)));
  variant_.download(result, stream);
  // The sample's problem drawn again on the host, from its seed: the recipe exactly as the device
  // drew it (recipe_problem, not make_problem, which may adjust what the recipe drew).
  const HostProblem problem = recipe_problem(workload_, shape_, sample_seed(seed_, workload_, shape_, index));
  const Verdict verdict = workload_.verify(problem, result);
  if (!verdict.passed)
    throw WrongTimedResult(which + " was wrong (its inputs and output were fresh; the check sizes' were not): " +
                           verdict.detail);
}

}  // namespace lb::lab
