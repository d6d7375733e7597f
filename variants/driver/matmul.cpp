// matmul through the driver API: a 2-D grid is two numbers of cuLaunchKernel's six.
#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
class Matmul final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    m_ = int(s.m), n_ = int(s.n), k_ = int(s.k);
    kernel_ = load_kernel(setup, "matmul", "matmul_tiled");
    a_ = DeviceMemory(s.m * s.k);
    b_ = DeviceMemory(s.k * s.n);
    c_ = DeviceMemory(s.m * s.n);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.inputs[1], stream);
    c_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    CUdeviceptr a = a_.get(), b = b_.get(), c = c_.get();
    void* args[] = {&a, &b, &c, &m_, &n_, &k_};
    launch(kernel_, matmul_grid_x(n_), matmul_grid_y(m_), LB_MM_THREADS, args, stream);
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  int m_ = 0, n_ = 0, k_ = 0;
  CUfunction kernel_ = nullptr;
  DeviceMemory a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT("driver", "matmul", Matmul);
}  // namespace lb::driver
