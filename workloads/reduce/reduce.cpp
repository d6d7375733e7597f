// reduce: s = sum of n fp32 elements. Reads x once: 4n bytes, n flops (additions).
// Inputs: inputs[0] = x, whole numbers 1..255 with random signs. Output: one float, poisoned with
// NaN before each verified run.
// Why whole numbers: a float holds every whole number up to 2^24 exactly, so adding two of them is
// exact while the result stays below 2^24, and any partial sum any order forms (a tree, a
// grid-stride loop, one atomic per element) is a sum of a subset of x: a random walk with steps
// of about 148, which reaches 2^24 within 2^28 steps with probability about 1e-11 (6.9 sigma). So
// every correct layer returns the exact sum, and the check asks for it: |s - ref| <= 1/2 (below). Any
// lost or doubled element changes the sum by a whole number; only a set of lost elements that
// adds up to exactly 0 goes unseen (for 256 random elements, probability below 1e-4).
// Real-valued inputs cannot do this: mean-zero ones make the sum (about sqrt(n)) smaller than any
// tolerance a long fp32 sum needs, and positive ones make a long sequential fp32 sum stagnate
// (at 2^24 positive elements of about 0.6, one running sum ends 4% high). docs/workloads.md.
#include "workloads/problem.h"

namespace lb {
namespace {

class Reduce final : public Workload {
 public:
  Reduce()
      : Workload({.name = "reduce",
                  .summary = "s = sum(x), n fp32",
                  .figure = Figure::kBandwidth,
                  .inputs = {{"x", {Dim::kN}}},
                  .output = {"out", {}},
                  .recipe = {.inputs = {{0, Draw::kIntegers}}},
                  .kernel_args = {{"x", ArgKind::kInput, 0, Dim::kN, "const float*"},
                                  {"n", ArgKind::kSize, 0, Dim::kN, "long long"},
                                  {"out", ArgKind::kOutput, 0, Dim::kN, "float*"}},
                  .ladder_default_size = "2^28",
                  .vendor = {"CUB", "cub::DeviceReduce::Sum"}}) {}
  std::vector<Shape> default_sizes() const override {
    return {{1, 1 << 20, 1}, {1, 1 << 24, 1}, {1, 1 << 26, 1}};
  }
  double bytes_read(const Shape& s) const override { return 4.0 * s.n; }  // x
  // The one float of s is left out, as the figure always has: 4 bytes in 4n.
  double bytes_written(const Shape&) const override { return 0.0; }
  double flops(const Shape& s) const override { return static_cast<double>(s.n); }
  double host_bytes(const Shape& s) const override { return 4.0 * s.n; }

  // The recipe's draw, with one adjustment: a sum of exactly 0 would let an output that starts at
  // 0 (a lab's, for atomics) pass unwritten, so x[0] is flipped, making it -2 x[0]. The lab's
  // timed samples, drawn on the device, skip this adjustment (lab/child/fresh_inputs.h): there, a zero
  // sum (about 1 sample in 10^6 at 2^20) is verified against the inputs the device drew.
  HostProblem make_problem(const Shape& s, std::uint64_t seed) const override {
    HostProblem p = recipe_problem(*this, s, seed);
    if (sums(p).sum == 0.0) p.inputs[0][0] = -p.inputs[0][0];
    return p;
  }

  Reference reference(const HostProblem& p) const override {
    const Sums s = sums(p);
    return Reference{{s.sum}, {s.sum_abs}, tolerance(s, p.shape.n)};
  }

  Verdict verify(const HostProblem& p, std::span<const float> got) const override {
    const Sums s = sums(p);
    const auto check = check_elements(
        got, [&](std::int64_t) { return s.sum; }, [&](std::int64_t) { return s.sum_abs; });
    return make_verdict(check, tolerance(s, p.shape.n), "sum");
  }

 private:
  struct Sums {
    double sum = 0.0, sum_abs = 0.0;
    bool whole = true;  // every input a whole number, as make_problem draws them
  };
  // Whole-number inputs: the exact sum, to half a whole number (relative to the scale the check
  // divides by, sum |x|). Others (a problem built by hand): the probabilistic bound of a sum of n
  // fp32 terms in any order, 4 sqrt(n) u sum|x| (u = 2^-24; Higham and Mary's analysis, lambda = 4).
  static double tolerance(const Sums& s, std::int64_t n) {
    return s.whole ? 0.5 / s.sum_abs : 2.0 * std::sqrt(double(n)) * kFloatEps;
  }
  static Sums sums(const HostProblem& p) {
    const HostBuffer& x = p.inputs[0];
    const auto n = static_cast<std::int64_t>(x.size());
    double sum = 0.0, sum_abs = 0.0;
    bool whole = true;
#pragma omp parallel for reduction(+ : sum, sum_abs) reduction(&& : whole) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      sum += x[i];
      sum_abs += std::fabs(double(x[i]));
      whole = whole && x[i] == std::trunc(x[i]);
    }
    return {sum, sum_abs, whole};
  }
};

}  // namespace
LB_REGISTER_WORKLOAD(Reduce, 30);
}  // namespace lb
