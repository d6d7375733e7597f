// vector_add with Thrust: one thrust::transform of two ranges with thrust::plus. There is no kernel
// to write, no grid to size and no launch to check: Thrust (CUB's DeviceTransform on the CUDA
// backend, an OpenMP loop on the other) decides all three, and throws thrust::system_error if a
// launch fails. With the default policy the call would return only after the work has finished;
// no_wait (par_nosync, thrust_layer.h) makes it return once the kernel is enqueued, like <<<>>>.
#include <thrust/functional.h>
#include <thrust/transform.h>

#include "variants/thrust/thrust_layer.h"

namespace lb::LB_THRUST_NS {
namespace {
class VectorAdd final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    a_ = make_vector(s.n, setup.stream);
    b_ = make_vector(s.n, setup.stream);
    c_ = make_vector(s.n, setup.stream);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    to_device(p.inputs[0], a_, stream);
    to_device(p.inputs[1], b_, stream);
    to_device(p.output, c_, stream);  // the NaN poison
  }
  void run(cudaStream_t stream) override { thrust::transform(no_wait(stream), a_.begin(), a_.end(), b_.begin(), c_.begin(), thrust::plus<float>()); }
  void download(std::span<float> out, cudaStream_t stream) override { to_host(c_, out, stream); }

 private:
  Vector a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT(LB_THRUST_LAYER, "vector_add", VectorAdd);
}  // namespace lb::LB_THRUST_NS
