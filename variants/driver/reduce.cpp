// reduce through the driver API: two functions from one module, launched in order on one stream.
#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
class Reduce final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    n_ = s.n;
    partial_ = load_kernel(setup, "reduce", "reduce_partial");
    final_ = load_kernel(setup, "reduce", "reduce_final");
    blocks_ = static_cast<int>(grid_stride_blocks(n_ / 4, setup.session_as<Session>().sm_count()));
    x_ = DeviceMemory(n_);
    partials_ = DeviceMemory(blocks_);
    sum_ = DeviceMemory(1);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    x_.upload(p.inputs[0], stream);
    sum_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    CUdeviceptr x = x_.get(), partials = partials_.get(), sum = sum_.get();
    void* partial_args[] = {&x, &n_, &partials};
    launch(partial_, blocks_, 1, LB_BLOCK, partial_args, stream);
    void* final_args[] = {&partials, &blocks_, &sum};
    launch(final_, 1, 1, LB_BLOCK, final_args, stream);
  }
  void download(std::span<float> out, cudaStream_t stream) override { sum_.download(out, stream); }

 private:
  long long n_ = 0;
  int blocks_ = 0;
  CUfunction partial_ = nullptr, final_ = nullptr;
  DeviceMemory x_, partials_, sum_;
};
}  // namespace
LB_REGISTER_VARIANT("driver", "reduce", Reduce);
}  // namespace lb::driver
