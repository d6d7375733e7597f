#include "harness/clocks.h"

#include <chrono>
#include <vector>

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

std::unique_ptr<SampleClock> make_sample_clock(bool on_gpu, cudaStream_t stream) {
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
