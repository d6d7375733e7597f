// Launch overhead through the driver API: cuLaunchKernel n times, without waiting (launch_async)
// or with cuStreamSynchronize after each (launch_sync). The argument array is packed once; the
// driver copies the values it points to at each launch, so `value` can change in between.
#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
template <bool kWaitEachTime>
class Launch final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    n_ = s.n;
    kernel_ = load_kernel(setup, "launch", "launch_probe");
    out_ = DeviceMemory(1);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override { out_.upload(p.output, stream); }
  void run(cudaStream_t stream) override {
    CUdeviceptr out = out_.get();
    float value = 0.0f;
    void* args[] = {&out, &value};
    for (long long i = 0; i < n_; ++i) {
      value = float(i + 1);
      launch(kernel_, 1, 1, 1, args, stream);
      if (kWaitEachTime) LB_CU_CHECK(cu().cuStreamSynchronize(stream));
    }
  }
  void download(std::span<float> out, cudaStream_t stream) override { out_.download(out, stream); }
  bool run_waits() const override { return kWaitEachTime; }

 private:
  long long n_ = 0;
  CUfunction kernel_ = nullptr;
  DeviceMemory out_;
};
using LaunchAsync = Launch<false>;
using LaunchSync = Launch<true>;
}  // namespace
LB_REGISTER_VARIANT("driver", "launch_async", LaunchAsync);
LB_REGISTER_VARIANT("driver", "launch_sync", LaunchSync);
}  // namespace lb::driver
