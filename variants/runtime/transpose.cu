// transpose through the CUDA runtime API: a 2-D grid of TILE x TILE tiles of A and, unlike the
// other workloads, a 2-D block, dim3(TILE / 4, ROWS): threadIdx.x walks a row of the tile a float4
// at a time (the coalesced direction), threadIdx.y the rows. The kernel's shared-memory tile is static (declared
// in the kernel), so the launch names no shared memory.
#include "variants/runtime/runtime_layer.h"
#include "workloads/transpose/kernels.cu"

namespace lb::runtime {
namespace {
class Transpose final : public Variant {
 public:
  void allocate(const Shape& s, const Setup&) override {
    shape_ = s;
    a_ = DeviceBuffer<float>(s.m * s.n);
    b_ = DeviceBuffer<float>(s.n * s.m);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    const dim3 grid(transpose_grid_x(shape_.n), transpose_grid_y(shape_.m));
    const TransposeBlock tb;
    const dim3 block(tb.x, tb.y);
    transpose<<<grid, block, 0, stream>>>(a_.get(), b_.get(), int(shape_.m), int(shape_.n));
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out, cudaStream_t stream) override { b_.download(out, stream); }

 private:
  Shape shape_;
  DeviceBuffer<float> a_, b_;
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "transpose", Transpose);
}  // namespace lb::runtime
