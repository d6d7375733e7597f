// How the harness times one run() of a case: a pair of device events on its stream for GPU
// layers, the host's steady clock for CPU layers.
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <memory>

namespace lb {

// stop() only marks the end; elapsed_ms() waits for the work between the two marks to finish, so
// the harness can let held-back device work go between them.
class SampleClock {
 public:
  virtual ~SampleClock() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual double elapsed_ms() = 0;
  double stop_ms() {
    stop();
    return elapsed_ms();
  }
};

// Device events on `stream` when `on_gpu`, else the host clock. With `host_clock` a GPU layer is
// timed by the host clock too (Layer::timing, run --host-clock): `stream` is drained before the
// clock starts and again before it stops, so a sample spans the call and all the device work it
// left on `stream` (a layer timed so enqueues on streams of its own and waits for them itself).
std::unique_ptr<SampleClock> make_sample_clock(bool on_gpu, cudaStream_t stream, bool host_clock = false);

// The median of `samples` timings of `work` on `stream`, after `warmups` untimed calls: how the
// ceilings are measured.
double median_ms_on_stream(const std::function<void()>& work, cudaStream_t stream, int warmups, int samples);

}  // namespace lb
