// Timing a submission the grader does not trust (docs/labs.md, "What grading guards against").
// Before every timed sample, outside its timed region, the kernel's inputs move to fresh windows
// of longer pools drawn from the grade's secret seed, and its output gets its starting contents
// again (NaN poison, or saxpy's y). After a random subset of samples and after the last one, the
// output is downloaded and verified against that sample's inputs, and the guard zone checked. So
// a kernel that reads its output to skip work, or answers from a cache of earlier results, either
// does the work in every sample or fails the grade.
//
// Windows start at multiples of 64 elements (256 bytes: the alignment, and so the coalescing, a
// fresh allocation gives). For input b and sample s the window is number (a_b s + c_b) mod W_b,
// with W_b a power of two no larger than the pool allows and a_b odd: no window repeats within
// W_b samples (16384 for a vector input), far more than a grade takes.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "harness/measure.h"
#include "lab/student_program.h"

namespace lb::lab {

// A timed sample's output was wrong: what() says which sample and how.
class WrongTimedResult : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RotatingInputs final : public SampleHooks {
 public:
  // Draws the pools for `shape` from `seed` and uploads them through `variant` (allocated for
  // `shape`), then times one reset of the output (reset_ms()).
  RotatingInputs(const Workload& workload, const Shape& shape, std::uint64_t seed, StudentVariant& variant,
                 cudaStream_t stream);
  void before_sample(std::size_t index, cudaStream_t stream) override;
  // Throws WrongTimedResult when a verified sample's output is wrong or wrote past its end.
  void after_sample(std::size_t index, bool last, cudaStream_t stream) override;

  std::size_t samples_verified() const { return verified_; }
  double reset_ms() const { return reset_ms_; }  // device time of one output reset (outside the timed region)

  static constexpr std::int64_t kSlack = std::int64_t{1} << 20;  // elements a pool has beyond a buffer
  static constexpr std::int64_t kAlign = 64;                      // elements between window starts
  static constexpr std::size_t kMaxRandomChecks = 8;             // verified samples besides the last

 private:
  struct Rotation {
    std::int64_t windows = 1, step = 1, start = 0;  // window (step s + start) mod windows
    std::int64_t offset(std::size_t sample) const;
  };
  SampleWindows windows_for(std::size_t sample) const;
  HostProblem problem_for(const SampleWindows& windows) const;

  const Workload& workload_;
  Shape shape_;
  std::uint64_t seed_;
  StudentVariant& variant_;
  HostProblem pool_;
  std::vector<Rotation> inputs_;
  Rotation output_;
  std::size_t current_ = 0;  // the sample whose windows the variant uses
  std::size_t verified_ = 0, random_checks_ = 0;
  double reset_ms_ = 0;
};

}  // namespace lb::lab
