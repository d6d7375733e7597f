// Launch overhead with Thrust: one thrust::fill_n of a single element per "launch". Behind the
// call: a CUB kernel launch and, with thrust::cuda::par (waits(), as a plain call with the default
// policy), a wait for it to finish before the call returns. So even n calls in a row are n round
// trips, and only launch_async is registered: what a Thrust user writing the obvious loop pays.
#include <thrust/fill.h>

#include "variants/thrust/thrust_layer.h"

namespace lb::LB_THRUST_NS {
namespace {
class LaunchAsync final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    n_ = s.n;
    out_ = make_vector(1, setup.stream);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override { to_device(p.output, out_, stream); }
  void run(cudaStream_t stream) override {
    for (std::int64_t i = 0; i < n_; ++i) thrust::fill_n(waits(stream), out_.begin(), 1, float(i + 1));
  }
  void download(std::span<float> out, cudaStream_t stream) override { to_host(out_, out, stream); }
  bool run_waits() const override { return true; }

 private:
  std::int64_t n_ = 0;
  Vector out_;
};
}  // namespace
LB_REGISTER_VARIANT(LB_THRUST_LAYER, "launch_async", LaunchAsync);
}  // namespace lb::LB_THRUST_NS
