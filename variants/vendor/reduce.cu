// reduce with CUB: cub::DeviceReduce::Sum, the sum written to device memory (a 1-float buffer),
// so run() enqueues and returns, unlike thrust::reduce, which hands the sum to the host and must
// wait. CUB's two-phase API: called with a null temporary-storage pointer it only says how many
// bytes it needs; allocate() does that and cudaMallocs them once, so the timed run() does no
// allocation. (CUB runs its own two passes: per-block partial sums into that temporary storage,
// then one block over the partials; for small n, a single-block kernel.)
#include <cub/device/device_reduce.cuh>

#include "variants/vendor/vendor_layer.h"

namespace lb::vendor {
namespace {

class Reduce final : public Variant {
 public:
  void allocate(const Shape& s, const Setup&) override {
    n_ = s.n;
    x_ = DeviceBuffer<float>(n_);
    sum_ = DeviceBuffer<float>(1);
    std::size_t bytes = 0;
    LB_CUDA_CHECK(cub::DeviceReduce::Sum(static_cast<void*>(nullptr), bytes, x_.get(), sum_.get(), n_));  // sizes only: no launch
    temp_ = DeviceBuffer<char>(bytes > 0 ? bytes : 1);
    temp_bytes_ = bytes;
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    x_.upload(p.inputs[0], stream);
    sum_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    std::size_t bytes = temp_bytes_;
    LB_CUDA_CHECK(cub::DeviceReduce::Sum(temp_.get(), bytes, x_.get(), sum_.get(), n_, stream));
  }
  void download(std::span<float> out, cudaStream_t stream) override { sum_.download(out, stream); }

 private:
  std::int64_t n_ = 0;
  std::size_t temp_bytes_ = 0;
  DeviceBuffer<float> x_, sum_;
  DeviceBuffer<char> temp_;
};

}  // namespace
LB_REGISTER_VARIANT("vendor", "reduce", Reduce);
}  // namespace lb::vendor
