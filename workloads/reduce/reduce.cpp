// reduce: s = sum of n fp32 elements. Reads x once: 4n bytes, n flops (additions).
// Inputs: inputs[0] = x. Output: one float, poisoned with NaN before each verified run.
// Tolerance: |s - ref| <= 2 sqrt(n) eps * sum|x_i|, eps = 2^-23. A tree or blocked sum errs by at
// most about log2(n) eps sum|x|; the sqrt(n) growth leaves room for layers that add long runs in
// sequence, which on these mean-zero inputs err by far less than their worst case.

#include "workloads/problem.h"

namespace lb {
namespace {

class Reduce final : public Workload {
 public:
  std::string name() const override { return "reduce"; }
  std::string summary() const override { return "s = sum(x), n fp32"; }
  Figure figure() const override { return Figure::kBandwidth; }
  std::vector<Shape> default_sizes() const override {
    return {{1, 1 << 20, 1}, {1, 1 << 24, 1}, {1, 1 << 28, 1}};
  }
  double bytes_moved(const Shape& s) const override { return 4.0 * s.n; }
  double flops(const Shape& s) const override { return static_cast<double>(s.n); }
  std::int64_t output_elements(const Shape&) const override { return 1; }
  double host_bytes(const Shape& s) const override { return 4.0 * s.n; }

  HostProblem make_problem(const Shape& s, std::uint64_t seed) const override {
    HostProblem p;
    p.shape = s;
    p.seed = seed;
    p.inputs.push_back(random_vector(s.n, seed, 0));
    p.output = poisoned(1);
    return p;
  }

  Reference reference(const HostProblem& p) const override {
    const Sums s = sums(p);
    return Reference{{s.sum}, {s.sum_abs}, tolerance(p)};
  }

  Verdict verify(const HostProblem& p, std::span<const float> got) const override {
    const Sums s = sums(p);
    const auto check = check_elements(
        got, [&](std::int64_t) { return s.sum; }, [&](std::int64_t) { return s.sum_abs; });
    return make_verdict(check, tolerance(p), "sum");
  }

 private:
  struct Sums {
    double sum = 0.0, sum_abs = 0.0;
  };
  static double tolerance(const HostProblem& p) { return 2.0 * std::sqrt(double(p.inputs[0].size())) * kFloatEps; }
  static Sums sums(const HostProblem& p) {
    const HostBuffer& x = p.inputs[0];
    const auto n = static_cast<std::int64_t>(x.size());
    double sum = 0.0, sum_abs = 0.0;
#pragma omp parallel for reduction(+ : sum, sum_abs) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      sum += x[i];
      sum_abs += std::fabs(double(x[i]));
    }
    return {sum, sum_abs};
  }
};

}  // namespace
LB_REGISTER_WORKLOAD(Reduce, 30);
}  // namespace lb
