// vector_add: c = a + b over n fp32 elements. Reads a and b, writes c: 12n bytes, n flops.
// Inputs: inputs[0] = a, inputs[1] = b. Output: c (poisoned with NaN before each verified run).
// Tolerance: one fp32 rounding of the exact sum, at most 2^-24 (|a|+|b|); we allow 2^-23.
#include "workloads/problem.h"

namespace lb {
namespace {

class VectorAdd final : public Workload {
 private:  // first: the overrides below use their deduced types
  static constexpr double kTolerance = kFloatEps;
  static auto expected(const HostProblem& p) {
    return [a = p.inputs[0].data(), b = p.inputs[1].data()](std::int64_t i) { return double(a[i]) + double(b[i]); };
  }
  static auto scale(const HostProblem& p) {
    return [a = p.inputs[0].data(), b = p.inputs[1].data()](std::int64_t i) {
      return std::fabs(double(a[i])) + std::fabs(double(b[i]));
    };
  }

 public:
  VectorAdd()
      : Workload({.name = "vector_add",
                  .summary = "c = a + b, n fp32",
                  .figure = Figure::kBandwidth,
                  .inputs = {{"a", {Dim::kN}}, {"b", {Dim::kN}}},
                  .output = {"c", {Dim::kN}},
                  .recipe = {.inputs = {{0, Draw::kUnit}, {1, Draw::kUnit}}},
                  .kernel_args = {{"a", ArgKind::kInput, 0, Dim::kN, "const float*"},
                                  {"b", ArgKind::kInput, 1, Dim::kN, "const float*"},
                                  {"c", ArgKind::kOutput, 0, Dim::kN, "float*"},
                                  {"n", ArgKind::kSize, 0, Dim::kN, "long long"}},
                  .vendor = {"CUB", "cub::DeviceTransform::Transform"}}) {}
  std::vector<Shape> default_sizes() const override {
    return {{1, 1 << 20, 1}, {1, 1 << 24, 1}, {1, 1 << 26, 1}};
  }
  double bytes_read(const Shape& s) const override { return 8.0 * s.n; }      // a, b
  double bytes_written(const Shape& s) const override { return 4.0 * s.n; }   // c
  double flops(const Shape& s) const override { return static_cast<double>(s.n); }
  double host_bytes(const Shape& s) const override { return 16.0 * s.n; }

  Reference reference(const HostProblem& p) const override {
    return tabulate_reference(p.shape.n, expected(p), scale(p), kTolerance);
  }

  Verdict verify(const HostProblem& p, std::span<const float> got) const override {
    return make_verdict(check_elements(got, expected(p), scale(p)), kTolerance, "element");
  }
};

}  // namespace
LB_REGISTER_WORKLOAD(VectorAdd, 10);
}  // namespace lb
