// Launch overhead with Thrust: one thrust::fill_n of a single element per "launch". Behind the
// call: a CUB kernel launch and, with the default policy, a wait for it to finish before the call
// returns (thrust::cuda::par_nosync would skip that). So even n calls in a row are n round trips:
// Thrust has no asynchronous form of this, and only launch_async is registered.
#include <thrust/fill.h>

#include "variants/thrust/thrust_layer.h"

namespace lb::LB_THRUST_NS {
namespace {
class LaunchAsync final : public Variant {
 public:
  void allocate(const Shape& s) override {
    n_ = s.n;
    out_ = make_vector(1);
  }
  void upload(const HostProblem& p) override { to_device(p.output, out_); }
  void run() override {
    for (std::int64_t i = 0; i < n_; ++i) thrust::fill_n(out_.begin(), 1, float(i + 1));
  }
  void download(std::span<float> out) override { to_host(out_, out); }
  bool run_waits() const override { return true; }

 private:
  std::int64_t n_ = 0;
  Vector out_;
};
}  // namespace
LB_REGISTER_VARIANT(LB_THRUST_LAYER, "launch_async", LaunchAsync);
}  // namespace lb::LB_THRUST_NS
