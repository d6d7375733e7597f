// Timing a submission the grader does not trust (docs/labs.md, "What grading guards against").
// Before every timed sample, outside its timed region, the kernel's inputs get new values, drawn
// on the device into the same buffers from a key that mixes the grade's secret seed with the
// sample's index; the output gets its starting contents again (NaN poison, or a fresh saxpy y); the
// scalar (saxpy's alpha) is drawn again and passed by value. After a random subset of samples and
// after the last one, the output is downloaded and verified against that sample's inputs, drawn
// again on the host from the same key, and the guard zone checked.
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
#include <stdexcept>

#include "harness/measure.h"
#include "lab/child/student_program.h"

namespace lb::lab {

// A timed sample's output was wrong: what() says which sample and how.
class WrongTimedResult : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class FreshInputs final : public SampleHooks {
 public:
  // For `variant` (allocated for `shape`), whose inputs and output stay where they are: draws one
  // sample's inputs on `stream` and times it (refresh_ms()).
  FreshInputs(const Workload& workload, const Shape& shape, std::uint64_t seed, StudentVariant& variant,
              cudaStream_t stream);
  void before_sample(std::size_t index, cudaStream_t stream) override;
  // Throws WrongTimedResult when a verified sample's output is wrong or wrote past its end.
  void after_sample(std::size_t index, bool last, cudaStream_t stream) override;

  std::size_t samples_verified() const { return verified_; }
  // Device time of one sample's fresh inputs, output start and scalar (outside the timed region):
  // what every timed sample costs the grade beside its kernel.
  double refresh_ms() const { return refresh_ms_; }

  static constexpr std::size_t kMaxRandomChecks = 8;  // verified samples besides the last

  // The seed sample `index` draws its problem from: the grade's seed, the workload and the size
  // (case_seed), and the index, mixed, so that no two samples share values.
  static std::uint64_t sample_seed(std::uint64_t seed, const Workload& workload, const Shape& shape,
                                   std::size_t index);

 private:
  void refresh(std::size_t index, cudaStream_t stream);

  const Workload& workload_;
  Shape shape_;
  std::uint64_t seed_;
  StudentVariant& variant_;
  DeviceBuffers buffers_;  // the variant's buffers, which do not move: asked for once, not every sample
  std::size_t verified_ = 0, random_checks_ = 0;
  double refresh_ms_ = 0;
};

}  // namespace lb::lab
