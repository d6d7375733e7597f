// vector_add through the CUDA runtime API. The kernel text is compiled into this binary by nvcc;
// launching it is one line: a grid with one thread per float4, on the harness's stream.
#include "variants/runtime/runtime_layer.h"
#include "workloads/vector_add/kernels.cu"

namespace lb::runtime {
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
    vector_add<<<flat_blocks(n_), LB_BLOCK, 0, stream>>>(a_.get(), b_.get(), c_.get(), n_);
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  long long n_ = 0;
  DeviceBuffer<float> a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "vector_add", VectorAdd);
}  // namespace lb::runtime
