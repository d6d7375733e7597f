// reduce through the CUDA runtime API: two launches in one stream. The second starts only after
// the first has finished, which is the grid-wide barrier the partial sums need.
#include "variants/runtime/runtime_layer.h"
#include "workloads/reduce/kernels.cu"

namespace lb::runtime {
namespace {
class Reduce final : public Variant {
 public:
  void allocate(const Shape& s, const Setup&) override {
    n_ = s.n;
    blocks_ = grid_for(n_ / 4);
    x_ = DeviceBuffer<float>(n_);
    partials_ = DeviceBuffer<float>(blocks_);
    sum_ = DeviceBuffer<float>(1);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    x_.upload(p.inputs[0], stream);
    sum_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    reduce_partial<<<blocks_, LB_BLOCK, 0, stream>>>(x_.get(), n_, partials_.get());
    LB_CHECK_LAUNCH();
    reduce_final<<<1, LB_BLOCK, 0, stream>>>(partials_.get(), static_cast<int>(blocks_), sum_.get());
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out, cudaStream_t stream) override { sum_.download(out, stream); }

 private:
  long long n_ = 0;
  unsigned blocks_ = 0;
  DeviceBuffer<float> x_, partials_, sum_;
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "reduce", Reduce);
}  // namespace lb::runtime
