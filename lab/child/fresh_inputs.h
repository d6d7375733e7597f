// Timing a submission the grader does not trust (docs/labs.md, "What grading guards against").
// Before every timed sample, outside its timed region, the kernel's inputs get new values, drawn
// into the same buffers from a key that mixes the grade's secret seed with the sample's index; the
// output gets its starting contents again (NaN poison, zeros, or a fresh saxpy y); the scalar
// (saxpy's alpha) is drawn again and passed by value. After every sample, outside its timed
// region, the guard zone is checked and the output downloaded and verified against that sample's
// own problem, drawn again on the host from the sample's key (the double-precision reference and
// tolerance of the check sizes): no subset, no cap, so one sample skipped or wrong fails the
// performance part, naming the sample.
//
// Each sample's key is its own (grade_keys.h: HMAC-SHA256 of the sample's index under its size's
// samples key, which the parent derived from the grade's secret): recovering it from the values a
// kernel read says nothing about the next sample's.
//
// Where a sample's problem is drawn is a type (InputRefresh), chosen once per workload: on the
// device, when the workload's descriptor has a recipe for every input (the built-in workloads:
// random_draw.h's arithmetic in a fill kernel, the host drawing the same values again only for a
// verified sample); else on the host, by the workload's make_problem from the sample's seed, and
// uploaded (a workload folder's inputs are workload_folder.py's draws, or its inputs.py's).
//
// Why this closes "update the last answer instead of computing it": consecutive samples' inputs
// are unrelated (a different key gives values with no window, shift or permutation relation to
// the last ones), and the kernel's arguments (pointers, sizes) are the same every sample, so they
// say nothing about what changed. The key is only ever a by-value argument of the fill kernel,
// never in device memory beside the inputs: without it (64 bits), regenerating the inputs is no
// cheaper for the kernel than reading them. So a kernel that reuses anything from an earlier
// sample (its inputs, its output, a sum kept in a __device__ variable) answers the last sample's
// problem, and a verified sample catches it.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "harness/measure.h"
#include "lab/child/grade_keys.h"
#include "lab/child/student_program.h"

namespace lb::lab {

// How a timed sample gets its problem into the variant's buffers (above).
class InputRefresh {
 public:
  virtual ~InputRefresh() = default;
  // Whether refresh() is device work on the stream (timed by events), else host work that is done
  // when it returns (timed by the host's clock).
  virtual bool on_device() const = 0;
  // The problem drawn from `sample_seed` into the variant's inputs, its output's starting contents
  // and its scalar, on `stream`.
  virtual void refresh(std::uint64_t sample_seed, cudaStream_t stream) = 0;
  // That problem on the host, as refresh(sample_seed) gave it: what a verified sample is checked against.
  virtual const HostProblem& problem(std::uint64_t sample_seed) = 0;
};

// On the device from the recipe when the workload has one for every input, else on the host.
std::unique_ptr<InputRefresh> input_refresh(const Workload& workload, const Shape& shape, StudentVariant& variant);

// A timed sample's output was wrong: what() says which sample and how.
class WrongTimedResult : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class FreshInputs final : public SampleHooks {
 public:
  // For `variant` (allocated for `shape`), whose inputs and output stay where they are: draws one
  // sample's inputs on `stream` and times it (refresh_ms()).
  FreshInputs(const Workload& workload, const Shape& shape, std::uint64_t samples_key, StudentVariant& variant,
              cudaStream_t stream);
  void before_sample(std::size_t index, cudaStream_t stream) override;
  // Throws WrongTimedResult when the sample's output is wrong or wrote past its end.
  void after_sample(std::size_t index, bool last, cudaStream_t stream) override;

  std::size_t samples_verified() const { return verified_; }
  // Mean time of one sample's verification (guard zone, download, the problem drawn again on the
  // host, the check), on the host's clock: what verifying every sample costs beside its kernel.
  double verify_ms() const { return verified_ == 0 ? 0.0 : verify_ms_total_ / static_cast<double>(verified_); }
  // The same, measured once before any sample (on the first sample's problem): what the time cap
  // is widened by, per sample.
  double verify_estimate_ms() const { return verify_estimate_ms_; }
  // Time of one sample's fresh inputs, output start and scalar (outside the timed region; on the
  // device, or on the host with its upload when drawn there): what every timed sample costs the
  // grade beside its kernel.
  double refresh_ms() const { return refresh_ms_; }
  // Whether each sample's problem is drawn on the host (InputRefresh::on_device false): a sample
  // then costs the grade its draw and upload beside its kernel (lab/runners/kernel_runner.cpp
  // widens the time cap for it).
  bool drawn_on_host() const { return !refresh_->on_device(); }

  // The seed sample `index` draws its problem from: GradeKeys::sample_key of its size's samples key.
  static std::uint64_t sample_seed(std::uint64_t samples_key, std::size_t index);

 private:
  std::uint64_t seed_of(std::size_t index) const { return sample_seed(samples_key_, index); }

  const Workload& workload_;
  Shape shape_;
  std::uint64_t samples_key_;
  StudentVariant& variant_;
  std::unique_ptr<InputRefresh> refresh_;
  std::size_t verified_ = 0;
  double refresh_ms_ = 0, verify_ms_total_ = 0, verify_estimate_ms_ = 0;
  HostBuffer result_;  // each sample's output, downloaded into the same host buffer
};

}  // namespace lb::lab
