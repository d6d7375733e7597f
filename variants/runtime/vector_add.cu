// vector_add through the CUDA runtime API. The kernel text is compiled into this binary by nvcc;
// launching it is one line: a grid with one thread per float4.
#include "variants/runtime/runtime_layer.h"
#include "workloads/vector_add/kernels.cu"

namespace lb::runtime {
namespace {
class VectorAdd final : public Variant {
 public:
  void allocate(const Shape& s) override {
    n_ = s.n;
    a_ = DeviceBuffer<float>(n_);
    b_ = DeviceBuffer<float>(n_);
    c_ = DeviceBuffer<float>(n_);
  }
  void upload(const HostProblem& p) override {
    a_.upload(p.inputs[0]);
    b_.upload(p.inputs[1]);
    c_.upload(p.output);
  }
  void run() override {
    vector_add<<<flat_blocks(n_), LB_BLOCK>>>(a_.get(), b_.get(), c_.get(), n_);
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out) override { c_.download(out); }

 private:
  long long n_ = 0;
  DeviceBuffer<float> a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "vector_add", VectorAdd);
}  // namespace lb::runtime
