// saxpy: y = alpha * x + y over n fp32 elements, in place as in BLAS. Reads x and y, writes y:
// 12n bytes, 2n flops. Inputs: inputs[0] = x; alpha. Output: y, whose starting contents are the
// second input. Being in place, y cannot be poisoned; an element nothing wrote keeps its old
// value y_i, which is off by |alpha x_i| >= 0.125 (|x| >= 0.25, alpha >= 0.5) and fails the check.
// Tolerance: at most two fp32 roundings (without FMA), 2^-23 (|alpha x|+|y|); we allow 2^-22.
#include "workloads/problem.h"

namespace lb {
namespace {

class Saxpy final : public Workload {
 private:  // first: the overrides below use their deduced types
  static constexpr double kTolerance = 2 * kFloatEps;
  // y is the output's starting contents (problem.output).
  static auto expected(const HostProblem& p) {
    return [x = p.inputs[0].data(), y = p.output.data(), alpha = double(p.alpha)](std::int64_t i) {
      return alpha * x[i] + y[i];
    };
  }
  static auto scale(const HostProblem& p) {
    return [x = p.inputs[0].data(), y = p.output.data(), alpha = double(p.alpha)](std::int64_t i) {
      return std::fabs(alpha * x[i]) + std::fabs(double(y[i]));
    };
  }

 public:
  Saxpy()
      : Workload({.name = "saxpy",
                  .summary = "y = alpha*x + y, n fp32, in place",
                  .figure = Figure::kBandwidth,
                  .inputs = {{"x", {Dim::kN}}},
                  .output = {"y", {Dim::kN}},
                  .recipe = {.inputs = {{0, Draw::kUnit}},  // x
                             .output = BufferDraw{1, Draw::kUnit},  // y
                             .scalar = ScalarDraw{2, 0.5f, 2.0f}},  // alpha
                  .kernel_args = {{"alpha", ArgKind::kScalar, 0, Dim::kN, "float"},
                                  {"x", ArgKind::kInput, 0, Dim::kN, "const float*"},
                                  {"y", ArgKind::kOutput, 0, Dim::kN, "float*"},
                                  {"n", ArgKind::kSize, 0, Dim::kN, "long long"}},
                  .vendor = {"cuBLAS", "cublasSaxpy_64"}}) {}
  std::vector<Shape> default_sizes() const override {
    return {{1, 1 << 20, 1}, {1, 1 << 24, 1}, {1, 1 << 26, 1}};
  }
  double bytes_read(const Shape& s) const override { return 8.0 * s.n; }      // x, y
  double bytes_written(const Shape& s) const override { return 4.0 * s.n; }   // y, in place
  double flops(const Shape& s) const override { return 2.0 * s.n; }
  double host_bytes(const Shape& s) const override { return 12.0 * s.n; }

  Reference reference(const HostProblem& p) const override {
    return tabulate_reference(p.shape.n, expected(p), scale(p), kTolerance);
  }

  Verdict verify(const HostProblem& p, std::span<const float> got) const override {
    return make_verdict(check_elements(got, expected(p), scale(p)), kTolerance, "element");
  }
};

}  // namespace
LB_REGISTER_WORKLOAD(Saxpy, 20);
}  // namespace lb
