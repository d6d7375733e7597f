// Launch overhead through the runtime API, both measurements in one file:
//   launch_async  n <<<1, 1>>> launches queued without waiting: the launch path's throughput.
//   launch_sync   n times: launch, then cudaStreamSynchronize: the round trip, including the
//                 wake-up of the waiting host thread.
#include "variants/runtime/runtime_layer.h"
#include "workloads/launch/kernels.h"

namespace lb::runtime {
namespace {
template <bool kWaitEachTime>
class Launch final : public Variant {
 public:
  void allocate(const Shape& s, const Setup&) override {
    n_ = s.n;
    out_ = DeviceBuffer<float>(1);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override { out_.upload(p.output, stream); }
  void run(cudaStream_t stream) override {
    for (long long i = 0; i < n_; ++i) {
      launch_probe<<<1, 1, 0, stream>>>(out_.get(), float(i + 1));
      LB_CHECK_LAUNCH();
      if (kWaitEachTime) LB_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }
  void download(std::span<float> out, cudaStream_t stream) override { out_.download(out, stream); }
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
