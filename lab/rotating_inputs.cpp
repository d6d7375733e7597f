#include "lab/rotating_inputs.h"

#include <algorithm>
#include <bit>
#include <random>

#include "harness/clocks.h"
#include "workloads/problem.h"

namespace lb::lab {
namespace {

constexpr std::uint64_t kVerifyStream = 0xC4EC4ull;  // random_scalar's streams for "verify sample i"

// A shape whose every input is at least kSlack elements longer than `s`'s (a matrix: rows added; a
// product: rows added to A and columns to B, no more than doubling each, so that the output pool
// stays near the output).
Shape pool_shape(const Workload& w, const Shape& s) {
  if (w.size_form() == SizeForm::kCount) return {s.m, s.n + RotatingInputs::kSlack, s.k};
  if (w.size_form() == SizeForm::kMatrix) return {s.m + (RotatingInputs::kSlack + s.n - 1) / s.n, s.n, s.k};
  const std::int64_t extra = (RotatingInputs::kSlack + s.k - 1) / s.k;
  return {s.m + std::min(extra, std::max<std::int64_t>(s.m, RotatingInputs::kAlign)),
          s.n + std::min(extra, std::max<std::int64_t>(s.n, RotatingInputs::kAlign)), s.k};
}

HostBuffer window(const HostBuffer& pool, std::int64_t offset, std::int64_t count) {
  HostBuffer part(static_cast<std::size_t>(count));
  parallel_copy(std::span<const float>(pool).subspan(offset, count), part);
  return part;
}

}  // namespace

std::int64_t RotatingInputs::Rotation::offset(std::size_t sample) const {
  const auto s = static_cast<std::uint64_t>(sample);
  return kAlign * static_cast<std::int64_t>((static_cast<std::uint64_t>(step) * s + start) % windows);
}

RotatingInputs::RotatingInputs(const Workload& workload, const Shape& shape, std::uint64_t seed,
                               StudentVariant& variant, cudaStream_t stream)
    : workload_(workload), shape_(shape), seed_(seed), variant_(variant) {
  const Shape big = pool_shape(workload, shape);
  pool_ = workload.make_problem(big, case_seed(seed ^ 0x9007ull, workload, big));
  std::mt19937_64 rng(seed ^ 0x707A7E5ull);
  const auto rotation = [&rng](std::int64_t pool_count, std::int64_t count) {
    Rotation r;
    r.windows = static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>((pool_count - count) / kAlign + 1)));
    r.step = static_cast<std::int64_t>((rng() % static_cast<std::uint64_t>(r.windows)) | 1u);  // odd: a permutation
    r.start = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(r.windows));
    return r;
  };
  const std::vector<std::int64_t> counts = workload.input_elements(shape);
  for (std::size_t i = 0; i < counts.size(); ++i)
    inputs_.push_back(rotation(static_cast<std::int64_t>(pool_.inputs[i].size()), counts[i]));
  output_ = rotation(static_cast<std::int64_t>(pool_.output.size()), workload.output_elements(shape));
  variant.upload_pools(pool_, stream);

  const auto clock = make_sample_clock(true, stream);
  clock->start();
  variant.use_windows(windows_for(0), stream);
  reset_ms_ = clock->stop_ms();
}

SampleWindows RotatingInputs::windows_for(std::size_t sample) const {
  SampleWindows w;
  for (const Rotation& r : inputs_) w.input_offsets.push_back(r.offset(sample));
  w.output_offset = output_.offset(sample);
  return w;
}

HostProblem RotatingInputs::problem_for(const SampleWindows& w) const {
  HostProblem p;
  p.shape = shape_;
  p.seed = pool_.seed;
  p.alpha = pool_.alpha;
  const std::vector<std::int64_t> counts = workload_.input_elements(shape_);
  for (std::size_t i = 0; i < counts.size(); ++i) p.inputs.push_back(window(pool_.inputs[i], w.input_offsets[i], counts[i]));
  p.output = window(pool_.output, w.output_offset, workload_.output_elements(shape_));
  return p;
}

void RotatingInputs::before_sample(std::size_t index, cudaStream_t stream) {
  current_ = index;
  variant_.use_windows(windows_for(index), stream);
}

void RotatingInputs::after_sample(std::size_t index, bool last, cudaStream_t stream) {
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
  const Verdict verdict = workload_.verify(problem_for(windows_for(current_)), result);
  if (!verdict.passed)
    throw WrongTimedResult(which + " was wrong (its inputs and output were fresh; the check sizes' were not): " +
                           verdict.detail);
}

}  // namespace lb::lab
