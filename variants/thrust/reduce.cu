// reduce with Thrust: one call, thrust::reduce, which returns the sum to the host. On the CUDA
// backend that one call hides what the runtime layer spells out and more: it asks CUB how much
// temporary storage the reduction needs, cudaMallocs it, launches CUB's kernels, synchronizes the
// stream, copies the 4-byte result device -> host and cudaFrees the storage, on every call. All
// of it is in run(), so all of it is timed: that is the price of the one-liner.
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include "variants/thrust/thrust_layer.h"

namespace lb::LB_THRUST_NS {
namespace {
class Reduce final : public Variant {
 public:
  void allocate(const Shape& s) override { x_ = make_vector(s.n); }
  void upload(const HostProblem& p) override {
    to_device(p.inputs[0], x_);
    sum_ = p.output[0];  // the NaN poison: download() reads a value only this run() can replace
  }
  void run() override { sum_ = thrust::reduce(x_.begin(), x_.end(), 0.0f, thrust::plus<float>()); }
  // The result is already on the host; there is nothing left to copy or wait for.
  void download(std::span<float> out) override { out[0] = sum_; }

 private:
  Vector x_;
  float sum_ = 0.0f;
};
}  // namespace
LB_REGISTER_VARIANT(LB_THRUST_LAYER, "reduce", Reduce);
}  // namespace lb::LB_THRUST_NS
