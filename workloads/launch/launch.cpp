// Launch overhead, measured as workloads of their own: one run is n launches of launch_probe
// (a one-thread, one-store kernel), the i-th writing i + 1. The figure is microseconds per launch.
//   launch_async  n launches back to back, no waiting in between: throughput, what a stream of
//                 small kernels costs.
//   launch_sync   n times: launch, then wait for it: the round trip a program pays when it needs
//                 each result before the next step.
// Output: one float, poisoned with NaN; after a run it must be exactly n (every launch ran, in
// order). No bytes, no flops.
#include "workloads/problem.h"

namespace lb {
namespace {

class Launch : public Workload {
 public:
  Launch(std::string name, std::string summary)
      : Workload({.name = std::move(name),
                  .summary = std::move(summary),
                  .figure = Figure::kLaunchTime,
                  // No kernel_args: launch_probe(out, value) takes the launch's index, which no
                  // binding from a size or a problem gives.
                  .output = {"out", {}}}) {}
  std::vector<Shape> default_sizes() const override { return {{1, 100, 1}}; }
  std::vector<Shape> edge_sizes() const override { return {{1, 1, 1}, {1, 2, 1}, {1, 17, 1}}; }
  double bytes_read(const Shape&) const override { return 0.0; }
  double bytes_written(const Shape&) const override { return 0.0; }
  double flops(const Shape&) const override { return 0.0; }
  std::int64_t launches(const Shape& s) const override { return s.n; }
  double host_bytes(const Shape&) const override { return 64.0; }

  HostProblem make_problem(const Shape& s, std::uint64_t seed) const override {
    if (s.n > (1 << 24)) throw std::invalid_argument("launch counts above 2^24 are not exact in fp32");
    return recipe_problem(*this, s, seed);  // no inputs; the output poisoned
  }

  Verdict verify(const HostProblem& p, std::span<const float> got) const override {
    const double expected = static_cast<double>(p.shape.n);
    const auto check = check_elements(
        got, [&](std::int64_t) { return expected; }, [&](std::int64_t) { return expected; });
    return make_verdict(check, 0.0, "value (the last launch's index)");
  }
};

struct LaunchAsync final : Launch {
  LaunchAsync() : Launch("launch_async", "n launches of a one-store kernel, back to back: us per launch") {}
};
struct LaunchSync final : Launch {
  LaunchSync() : Launch("launch_sync", "n times: launch a one-store kernel and wait: us per round trip") {}
};

}  // namespace
LB_REGISTER_WORKLOAD(LaunchAsync, 50);
LB_REGISTER_WORKLOAD(LaunchSync, 60);
}  // namespace lb
