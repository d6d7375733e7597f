// saxpy through the CUDA runtime API: y is updated in place, so upload() writes y's starting
// values into the one buffer that the kernel both reads and writes.
#include "variants/runtime/runtime_layer.h"
#include "workloads/saxpy/kernels.cu"

namespace lb::runtime {
namespace {
class Saxpy final : public Variant {
 public:
  void allocate(const Shape& s, const Setup&) override {
    n_ = s.n;
    x_ = DeviceBuffer<float>(n_);
    y_ = DeviceBuffer<float>(n_);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    alpha_ = p.alpha;
    x_.upload(p.inputs[0], stream);
    y_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    saxpy<<<flat_blocks(n_), LB_BLOCK, 0, stream>>>(alpha_, x_.get(), y_.get(), n_);
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out, cudaStream_t stream) override { y_.download(out, stream); }

 private:
  long long n_ = 0;
  float alpha_ = 0.0f;
  DeviceBuffer<float> x_, y_;
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "saxpy", Saxpy);
}  // namespace lb::runtime
