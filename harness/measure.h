// Step 3b of a case: the timed samples, until the stopping rule says so.
#pragma once
#include "harness/case.h"
#include "harness/environment.h"
#include "harness/progress.h"

namespace lb {

// What a caller does around each sample, outside its timed region (timing a submission it does
// not trust: lab/child/fresh_inputs.h). before_sample runs before the stream is held and the L2
// flushed; after_sample once the sample's time has been read, with `last` when no sample follows.
class SampleHooks {
 public:
  virtual ~SampleHooks() = default;
  virtual void before_sample(std::size_t index, cudaStream_t stream) = 0;
  virtual void after_sample(std::size_t index, bool last, cudaStream_t stream) = 0;
};

// Each sample: (where it may) hold the stream, (cold mode) flush the L2, then the harness's clock
// around one run() on the harness's stream; then (when NVML can) read the SM clock and discard
// the sample if the GPU was throttled; stops at the stopping rule, or on an interrupt after the
// sample under way (Stop::kInterrupted). Fills r's measurement fields and returns the kept samples.
// Throws what run() throws, and when a held run() waited for the device.
SampleSeries take_samples(CaseResult& r, Variant& variant, const Environment& env, Progress& progress,
                          SampleHooks* hooks = nullptr);

}  // namespace lb
