// Launch overhead through the runtime API, both measurements in one file (they share one kernel,
// which one translation unit must define):
//   launch_async  n <<<1, 1>>> launches queued without waiting: the launch path's throughput.
//   launch_sync   n times: launch, then cudaStreamSynchronize: the round trip, including the
//                 wake-up of the waiting host thread.
#include "variants/runtime/runtime_layer.h"
#include "workloads/launch/kernels.cu"

namespace lb::runtime {

void enqueue_launch_probe(float* out, float value, cudaStream_t stream) {
  launch_probe<<<1, 1, 0, stream>>>(out, value);
  LB_CHECK_LAUNCH();
}

namespace {
template <bool kWaitEachTime>
class Launch final : public Variant {
 public:
  void allocate(const Shape& s) override {
    n_ = s.n;
    out_ = DeviceBuffer<float>(1);
  }
  void upload(const HostProblem& p) override { out_.upload(p.output); }
  void run() override {
    for (long long i = 0; i < n_; ++i) {
      launch_probe<<<1, 1>>>(out_.get(), float(i + 1));
      LB_CHECK_LAUNCH();
      if (kWaitEachTime) LB_CUDA_CHECK(cudaStreamSynchronize(0));
    }
  }
  void download(std::span<float> out) override { out_.download(out); }
  bool run_waits() const override { return kWaitEachTime; }

 private:
  long long n_ = 0;
  DeviceBuffer<float> out_;
};
using LaunchAsync = Launch<false>;
using LaunchSync = Launch<true>;
}  // namespace
LB_REGISTER_VARIANT("runtime", "launch_async", LaunchAsync);
LB_REGISTER_VARIANT("runtime", "launch_sync", LaunchSync);
}  // namespace lb::runtime
