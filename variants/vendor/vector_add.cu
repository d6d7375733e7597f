// vector_add with CUB: cub::DeviceTransform::Transform over the two inputs (a tuple of pointers)
// into c, with cuda::std::plus<float>. DeviceTransform is in the CCCL that CUDA 13 ships (CCCL
// 3.0, include/cccl/cub/device/device_transform.cuh): CUB's element-wise algorithm, which picks
// its loading strategy per architecture (on Hopper, bulk copies into shared memory through the
// TMA engine where sizes and alignment allow, else prefetching loads) and needs no temporary
// storage. It returns a cudaError_t; the kernel goes on the stream it is given, no wait.
#include <cub/device/device_transform.cuh>
#include <cuda/std/functional>
#include <cuda/std/tuple>

#include "variants/vendor/vendor_layer.h"

namespace lb::vendor {
namespace {

class VectorAdd final : public Variant {
 public:
  void allocate(const Shape& s, const Setup&) override {
    n_ = s.n;
    a_ = DeviceBuffer<float>(n_);
    b_ = DeviceBuffer<float>(n_);
    c_ = DeviceBuffer<float>(n_);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.inputs[1], stream);
    c_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    const float* a = a_.get();
    const float* b = b_.get();
    LB_CUDA_CHECK(cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b), c_.get(), n_,
                                                  ::cuda::std::plus<float>{}, stream));
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  std::int64_t n_ = 0;
  DeviceBuffer<float> a_, b_, c_;
};

}  // namespace
LB_REGISTER_VARIANT("vendor", "vector_add", VectorAdd);
}  // namespace lb::vendor
