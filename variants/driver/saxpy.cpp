// saxpy through the driver API: the scalar is passed like any argument, by the address of a float
// the driver copies at launch.
#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
class Saxpy final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    n_ = s.n;
    kernel_ = load_kernel(setup, "saxpy", "saxpy");
    x_ = DeviceMemory(n_);
    y_ = DeviceMemory(n_);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    alpha_ = p.alpha;
    x_.upload(p.inputs[0], stream);
    y_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    CUdeviceptr x = x_.get(), y = y_.get();
    void* args[] = {&alpha_, &x, &y, &n_};
    launch(kernel_, flat_blocks(n_), 1, LB_BLOCK, args, stream);
  }
  void download(std::span<float> out, cudaStream_t stream) override { y_.download(out, stream); }

 private:
  long long n_ = 0;
  float alpha_ = 0.0f;
  CUfunction kernel_ = nullptr;
  DeviceMemory x_, y_;
};
}  // namespace
LB_REGISTER_VARIANT("driver", "saxpy", Saxpy);
}  // namespace lb::driver
