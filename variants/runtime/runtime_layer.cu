#include <algorithm>
#include <string>

#include "harness/device_info.h"
#include "variants/runtime/runtime_layer.h"

namespace lb::runtime {
namespace {

// cudaEvent pair recorded on the default stream around the work.
class EventClock final : public SampleClock {
 public:
  EventClock() {
    LB_CUDA_CHECK(cudaEventCreate(&start_));
    LB_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventClock() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventClock(const EventClock&) = delete;
  EventClock& operator=(const EventClock&) = delete;
  void start() override { LB_CUDA_CHECK(cudaEventRecord(start_, 0)); }
  void stop() override { LB_CUDA_CHECK(cudaEventRecord(stop_, 0)); }
  double elapsed_ms() override {
    LB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    LB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace
}  // namespace lb::runtime

namespace lb {
std::unique_ptr<SampleClock> make_default_stream_event_clock() { return std::make_unique<runtime::EventClock>(); }
}  // namespace lb

namespace lb::runtime {

int sm_count() {
  static const int count = [] {
    int device = 0, value = 0;
    LB_CUDA_CHECK(cudaGetDevice(&device));
    LB_CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
    return value;
  }();
  return count;
}

LB_REGISTER_LAYER(Layer{
    .name = "runtime",
    .summary = "CUDA runtime API: cudaMalloc, cudaMemcpy, <<<>>> launches (kernels built by nvcc)",
    .on_gpu = true,
    .rank = 10,
    .unavailable_reason = [] { return gpu_unavailable_reason(); },
    .make_clock = make_default_stream_event_clock,
    .describe = [] { return nlohmann::json{{"compiler", "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." +
                                                             std::to_string(__CUDACC_VER_MINOR__)}}; },
});

}  // namespace lb::runtime
