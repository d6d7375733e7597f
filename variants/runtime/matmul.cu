// matmul through the CUDA runtime API: a 2-D grid of 128x128 output tiles.
#include "variants/runtime/runtime_layer.h"
#include "workloads/matmul/kernels.cu"

namespace lb::runtime {
namespace {
class Matmul final : public Variant {
 public:
  void allocate(const Shape& s) override {
    shape_ = s;
    a_ = DeviceBuffer<float>(s.m * s.k);
    b_ = DeviceBuffer<float>(s.k * s.n);
    c_ = DeviceBuffer<float>(s.m * s.n);
  }
  void upload(const HostProblem& p) override {
    a_.upload(p.inputs[0]);
    b_.upload(p.inputs[1]);
    c_.upload(p.output);
  }
  void run() override {
    const dim3 grid(matmul_grid_x(shape_.n), matmul_grid_y(shape_.m));
    matmul_tiled<<<grid, LB_MM_THREADS>>>(a_.get(), b_.get(), c_.get(), int(shape_.m), int(shape_.n),
                                          int(shape_.k));
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out) override { c_.download(out); }

 private:
  Shape shape_;
  DeviceBuffer<float> a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "matmul", Matmul);
}  // namespace lb::runtime
