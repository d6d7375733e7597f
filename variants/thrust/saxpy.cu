// saxpy with Thrust: a binary thrust::transform whose output range is its second input, which
// Thrust allows, so y is updated in place as in BLAS. alpha travels inside the functor: Thrust
// copies the functor to the device as a kernel argument, as the runtime layer passes alpha.
#include <thrust/transform.h>

#include "variants/thrust/thrust_layer.h"

namespace lb::LB_THRUST_NS {
namespace {

struct AlphaXPlusY {
  float alpha;
  LB_HOST_DEVICE float operator()(float x, float y) const { return alpha * x + y; }
};

class Saxpy final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    x_ = make_vector(s.n, setup.stream);
    y_ = make_vector(s.n, setup.stream);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    alpha_ = p.alpha;
    to_device(p.inputs[0], x_, stream);
    to_device(p.output, y_, stream);  // y's starting values
  }
  void run(cudaStream_t stream) override { thrust::transform(no_wait(stream), x_.begin(), x_.end(), y_.begin(), y_.begin(), AlphaXPlusY{alpha_}); }
  void download(std::span<float> out, cudaStream_t stream) override { to_host(y_, out, stream); }

 private:
  float alpha_ = 0.0f;
  Vector x_, y_;
};
}  // namespace
LB_REGISTER_VARIANT(LB_THRUST_LAYER, "saxpy", Saxpy);
}  // namespace lb::LB_THRUST_NS
