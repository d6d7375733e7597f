#include "lab/child/fresh_inputs.h"

#include <chrono>
#include <functional>
#include <set>
#include <string_view>
#include <utility>

#include "harness/clocks.h"
#include "workloads/fill_random.h"
#include "workloads/problem.h"

namespace lb::lab {
std::uint64_t FreshInputs::sample_seed(std::uint64_t samples_key, std::size_t index) {
  return GradeKeys::sample_key(samples_key, index);
}

namespace {

// The built-in workloads: the recipe's fill kernel writes the inputs, the output's start and
// returns the scalar, on the stream; the key is a by-value argument of the fill, never in device
// memory. A verified sample's problem is drawn again on the host: recipe_problem, exactly as the
// device drew it (not make_problem, which may adjust what the recipe drew).
class DrawnOnDevice final : public InputRefresh {
 public:
  DrawnOnDevice(const Workload& workload, const Shape& shape, StudentVariant& variant)
      : workload_(workload), shape_(shape), variant_(variant), buffers_(variant.device_buffers()) {}
  bool on_device() const override { return true; }
  void refresh(std::uint64_t sample_seed, cudaStream_t stream) override {
    variant_.set_scalar(recipe_on_device(workload_, shape_, sample_seed, buffers_.inputs, buffers_.output, stream));
  }
  const HostProblem& problem(std::uint64_t sample_seed) override {
    if (problem_.inputs.empty()) problem_ = recipe_problem(workload_, shape_, sample_seed);
    else redraw_recipe_problem(workload_, problem_, sample_seed);  // the same host buffers every sample
    return problem_;
  }

 private:
  const Workload& workload_;
  Shape shape_;
  StudentVariant& variant_;
  DeviceBuffers buffers_;  // the variant's buffers, which do not move: asked for once, not every sample
  HostProblem problem_;
};

// A workload without a recipe (a workload folder): the sample's problem drawn on the host by the
// workload itself (make_problem from the sample's seed), then uploaded into the same buffers by
// the variant's upload, which restarts the outputs and rewrites the guard zones. The drawn
// problem is kept until the next sample's, for the verification.
class DrawnOnHost final : public InputRefresh {
 public:
  DrawnOnHost(const Workload& workload, const Shape& shape, StudentVariant& variant)
      : workload_(workload), shape_(shape), variant_(variant) {}
  bool on_device() const override { return false; }
  void refresh(std::uint64_t sample_seed, cudaStream_t stream) override {
    problem(sample_seed);
    variant_.upload(problem_, stream);  // done when it returns (DeviceMemory::upload waits)
  }
  const HostProblem& problem(std::uint64_t sample_seed) override {
    if (!drawn_ || drawn_seed_ != sample_seed) {
      problem_ = workload_.make_problem(shape_, sample_seed);
      refuse_repeated_inputs();
      drawn_ = true;
      drawn_seed_ = sample_seed;
    }
    return problem_;
  }

 private:
  // A workload whose draw ignores the seed (an inputs.py that returns the same arrays every time, or
  // cycles through a few) would give a sample an earlier one's inputs, and a kernel could keep its
  // answer: the grade stops, blaming the workload, not the student. Each input buffer's contents
  // are hashed per sample and must not recur. A buffer of fewer than 16 floats may repeat by chance
  // (a one-element index of range 2), so only larger ones are held to it.
  void refuse_repeated_inputs() {
    for (std::size_t i = 0; i < problem_.inputs.size(); ++i) {
      const HostBuffer& now = problem_.inputs[i];
      if (now.size() < 16) continue;
      const std::size_t hash = std::hash<std::string_view>{}(
          std::string_view(reinterpret_cast<const char*>(now.data()), now.size() * sizeof(float)));
      if (!seen_.insert({i, hash}).second)
        throw std::runtime_error("workload " + workload_.name() + ": input " + std::to_string(i + 1) +
                                 " drew the same values from two different seeds (does its inputs.py use its seed?);"
                                 " a grade needs fresh inputs for every timed sample");
    }
  }

  const Workload& workload_;
  Shape shape_;
  StudentVariant& variant_;
  HostProblem problem_;
  std::set<std::pair<std::size_t, std::size_t>> seen_;  // (input, hash of its contents) of every sample drawn
  bool drawn_ = false;
  std::uint64_t drawn_seed_ = 0;
};

}  // namespace

std::unique_ptr<InputRefresh> input_refresh(const Workload& workload, const Shape& shape, StudentVariant& variant) {
  const WorkloadDescriptor& d = workload.descriptor();
  if (!d.recipe.inputs.empty() && d.recipe.inputs.size() == d.inputs.size())
    return std::make_unique<DrawnOnDevice>(workload, shape, variant);
  return std::make_unique<DrawnOnHost>(workload, shape, variant);
}

FreshInputs::FreshInputs(const Workload& workload, const Shape& shape, std::uint64_t samples_key,
                         StudentVariant& variant, cudaStream_t stream)
    : workload_(workload), shape_(shape), samples_key_(samples_key), variant_(variant),
      refresh_(input_refresh(workload, shape, variant)) {
  // One refresh timed (the first sample's: before_sample(0) gives it again).
  const auto clock = make_sample_clock(refresh_->on_device(), stream);
  clock->start();
  refresh_->refresh(seed_of(0), stream);
  refresh_ms_ = clock->stop_ms();
  // And what one sample's verification will cost (the output as it is, not yet the kernel's: only
  // the time counts), for the time cap (kernel_runner.cpp): after_sample's work but its verdict.
  const auto started = std::chrono::steady_clock::now();
  (void)variant_.first_write_past_end(stream);
  result_.resize(static_cast<std::size_t>(workload_.output_elements(shape_)));
  variant_.download(result_, stream);
  (void)workload_.verify(refresh_->problem(seed_of(0)), result_);
  verify_estimate_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
}

void FreshInputs::before_sample(std::size_t index, cudaStream_t stream) { refresh_->refresh(seed_of(index), stream); }

void FreshInputs::after_sample(std::size_t index, bool last, cudaStream_t stream) {
  // Every sample: a kernel cannot tell a checked sample from another, so none can be skipped.
  const auto started = std::chrono::steady_clock::now();
  ++verified_;
  const std::string which = "timed sample " + std::to_string(index + 1) + (last ? " (the last)" : "");
  if (const std::int64_t past_end = variant_.first_write_past_end(stream); past_end >= 0)
    throw WrongTimedResult(which + " wrote past the end of its output (" + std::to_string(past_end) +
                           " elements past it)");
  variant_.download(result_, stream);
  const HostProblem& problem = refresh_->problem(seed_of(index));  // the sample's own, drawn again from its key
  const Verdict verdict = workload_.verify(problem, result_);
  if (!verdict.passed)
    throw WrongTimedResult(which + " was wrong (its inputs and output were fresh; the check sizes' were not): " +
                           verdict.detail);
  verify_ms_total_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace lb::lab
