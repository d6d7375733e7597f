#include "harness/clocks.h"

#include <chrono>
#include <vector>

#include "common/cuda_check.h"
#include "common/elapsed.h"
#include "common/median.h"
#include "common/stream.h"

namespace lb {
namespace {

class HostClock final : public SampleClock {
 public:
  void start() override { t0_ = std::chrono::steady_clock::now(); }
  void stop() override { ms_ = ms_since(t0_); }
  double elapsed_ms() override { return ms_; }

 private:
  std::chrono::steady_clock::time_point t0_;
  double ms_ = 0.0;
};

// A GPU layer timed by the host clock: what the harness enqueued before (the L2 flush) is done
// before the start, and what run() left on the harness's stream is done before the stop.
class StreamHostClock final : public SampleClock {
 public:
  explicit StreamHostClock(cudaStream_t stream) : stream_(stream) {}
  void start() override {
    LB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    t0_ = std::chrono::steady_clock::now();
  }
  void stop() override {
    LB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ms_ = ms_since(t0_);
  }
  double elapsed_ms() override { return ms_; }

 private:
  cudaStream_t stream_;
  std::chrono::steady_clock::time_point t0_;
  double ms_ = 0.0;
};

class EventClock final : public SampleClock {
 public:
  explicit EventClock(cudaStream_t stream) : stream_(stream) {}
  void start() override { start_.record(stream_); }
  void stop() override { stop_.record(stream_); }
  double elapsed_ms() override { return Event::elapsed_ms(start_, stop_); }

 private:
  cudaStream_t stream_;
  Event start_, stop_;
};

}  // namespace

std::unique_ptr<SampleClock> make_sample_clock(bool on_gpu, cudaStream_t stream, bool host_clock) {
  if (on_gpu && host_clock) return std::make_unique<StreamHostClock>(stream);
  if (on_gpu) return std::make_unique<EventClock>(stream);
  return std::make_unique<HostClock>();
}

double median_ms_on_stream(const std::function<void()>& work, cudaStream_t stream, int warmups, int samples) {
  for (int i = 0; i < warmups; ++i) work();
  EventClock clock(stream);
  std::vector<double> ms;
  for (int i = 0; i < samples; ++i) {
    clock.start();
    work();
    ms.push_back(clock.stop_ms());
  }
  return median(ms);
}

}  // namespace lb
