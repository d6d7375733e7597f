// matmul through the CUDA runtime API: a 2-D grid of 128x128 output tiles.
#include "variants/runtime/runtime_layer.h"
#include "workloads/matmul/kernels.cu"

namespace lb::runtime {
namespace {
class Matmul final : public Variant {
 public:
  void allocate(const Shape& s, const Setup&) override {
    shape_ = s;
    a_ = DeviceBuffer<float>(s.m * s.k);
    b_ = DeviceBuffer<float>(s.k * s.n);
    c_ = DeviceBuffer<float>(s.m * s.n);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.inputs[1], stream);
    c_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    const dim3 grid(matmul_grid_x(shape_.n), matmul_grid_y(shape_.m));
    matmul_tiled<<<grid, LB_MM_THREADS, 0, stream>>>(a_.get(), b_.get(), c_.get(), int(shape_.m), int(shape_.n),
                                                     int(shape_.k));
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  Shape shape_;
  DeviceBuffer<float> a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "matmul", Matmul);
}  // namespace lb::runtime
