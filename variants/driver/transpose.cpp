// transpose through the driver API: the same kernel text as the runtime layer, compiled by NVRTC.
// Its block is 2-D (TILE x ROWS threads), which the layer's launch() helper (1-D blocks) does not
// take, so this file calls cuLaunchKernel itself, every number in view: the grid's x, y, z, the
// block's x, y, z, the dynamic shared memory (none: the tile is declared in the kernel), the stream
// and the packed arguments. The runtime layer's <<<grid, block, 0, stream>>> is the same call.
#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
class Transpose final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    m_ = int(s.m), n_ = int(s.n);
    kernel_ = load_kernel(setup, "transpose", "transpose");
    a_ = DeviceMemory(s.m * s.n);
    b_ = DeviceMemory(s.n * s.m);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    CUdeviceptr a = a_.get(), b = b_.get();
    void* args[] = {&a, &b, &m_, &n_};
    const TransposeBlock block;
    LB_CU_CHECK(cu().cuLaunchKernel(kernel_, transpose_grid_x(n_), transpose_grid_y(m_), 1, block.x, block.y, 1,
                                    /*shared bytes*/ 0, stream, args, /*extra*/ nullptr));
  }
  void download(std::span<float> out, cudaStream_t stream) override { b_.download(out, stream); }

 private:
  int m_ = 0, n_ = 0;  // the kernel's parameters are int: the pointed-to type must match
  CUfunction kernel_ = nullptr;
  DeviceMemory a_, b_;
};
}  // namespace
LB_REGISTER_VARIANT("driver", "transpose", Transpose);
}  // namespace lb::driver
