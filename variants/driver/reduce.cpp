// reduce through the driver API: two functions from one module, launched in order on one stream.
#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
class Reduce final : public Variant {
 public:
  void allocate(const Shape& s) override {
    n_ = s.n;
    partial_ = load_kernel("reduce", "reduce_partial");
    final_ = load_kernel("reduce", "reduce_final");
    blocks_ = static_cast<int>(grid_stride_blocks(n_ / 4, sm_count()));
    x_ = DeviceMemory(n_);
    partials_ = DeviceMemory(blocks_);
    sum_ = DeviceMemory(1);
  }
  void upload(const HostProblem& p) override {
    x_.upload(p.inputs[0]);
    sum_.upload(p.output);
  }
  void run() override {
    CUdeviceptr x = x_.get(), partials = partials_.get(), sum = sum_.get();
    void* partial_args[] = {&x, &n_, &partials};
    launch(partial_, blocks_, 1, LB_BLOCK, partial_args);
    void* final_args[] = {&partials, &blocks_, &sum};
    launch(final_, 1, 1, LB_BLOCK, final_args);
  }
  void download(std::span<float> out) override { sum_.download(out); }

 private:
  long long n_ = 0;
  int blocks_ = 0;
  CUfunction partial_ = nullptr, final_ = nullptr;
  DeviceMemory x_, partials_, sum_;
};
}  // namespace
LB_REGISTER_VARIANT("driver", "reduce", Reduce);
}  // namespace lb::driver
