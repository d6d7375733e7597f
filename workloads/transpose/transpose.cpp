// transpose: B = A^T, fp32, out of place; A is m x n row-major, B is n x m row-major, so
// B[j][i] = A[i][j]. Reads A once and writes B once: 8mn bytes, no flops.
// Inputs: inputs[0] = A. Output: B, poisoned with NaN before each verified run.
// Check: exact, every element. A transpose moves bits and computes nothing, so each element of B
// must equal its source in A exactly (tolerance 0; NaN never equals, so an unwritten element
// fails). The error reported is |got - expected| / |expected|.
// What it detects: any element missing (NaN), altered in any bit but the sign of a zero (A has no
// zeros), or misplaced. A misplaced element passes only where it lands on an equal one; A is drawn
// from Draw::kUnit, 24 random bits of magnitude and a random sign, which give about 2.8e7 distinct
// values, and two elements are equal with probability 4.0e-8 (2^-24.6; exact count over the
// draw's 2^24 magnitudes). So a swapped pair passes with probability 4e-8, and a kernel that
// misplaces k elements with at most that to the power of about k/2. Where m = 1 or n = 1 the
// transpose is a copy, and a kernel that copies without transposing is right there.
#include <algorithm>
#include <cfloat>
#include <cstdio>

#include "workloads/problem.h"

namespace lb {
namespace {

class Transpose final : public Workload {
 private:  // first: the overrides below use their deduced types
  static constexpr double kTolerance = 0.0;
  // B is n x m: output element o is B[o / m][o % m] = A[o % m][o / m].
  static auto expected(const HostProblem& p) {
    return [a = p.inputs[0].data(), m = p.shape.m, n = p.shape.n](std::int64_t o) {
      return double(a[(o % m) * n + o / m]);
    };
  }
  // |A| (never 0 in a drawn A), so the error reads as relative; FLT_MIN where a hand-built A holds
  // a zero, so that 0/0 does not fail a right answer.
  static auto scale(const HostProblem& p) {
    return [ref = expected(p)](std::int64_t o) { return std::max(std::fabs(ref(o)), double(FLT_MIN)); };
  }

 public:
  Transpose()
      : Workload({.name = "transpose",
                  .summary = "B = A^T, fp32, row-major, A MxN",
                  .figure = Figure::kBandwidth,
                  .size_form = SizeForm::kMatrix,
                  .inputs = {{"A", {Dim::kM, Dim::kN}}},
                  .output = {"B", {Dim::kN, Dim::kM}},
                  .recipe = {.inputs = {{0, Draw::kUnit}}},
                  .kernel_args = {{"A", ArgKind::kInput, 0, Dim::kN, "const float*"},
                                  {"B", ArgKind::kOutput, 0, Dim::kN, "float*"},
                                  {"M", ArgKind::kSize, 0, Dim::kM, "int"},
                                  {"N", ArgKind::kSize, 0, Dim::kN, "int"}},
                  .vendor = {"cuBLAS", "cublasSgeam"}}) {}
  std::vector<Shape> default_sizes() const override { return {{4096, 4096, 1}, {8192, 8192, 1}}; }
  double bytes_read(const Shape& s) const override { return 4.0 * double(s.m) * s.n; }     // A
  double bytes_written(const Shape& s) const override { return 4.0 * double(s.m) * s.n; }  // B
  double flops(const Shape&) const override { return 0.0; }
  double host_bytes(const Shape& s) const override { return 12.0 * double(s.m) * s.n; }  // A, poisoned B, result

  Reference reference(const HostProblem& p) const override {
    return tabulate_reference(p.shape.n * p.shape.m, expected(p), scale(p), kTolerance);
  }

  Verdict verify(const HostProblem& p, std::span<const float> got) const override {
    const ElementCheck check = check_elements(got, expected(p), scale(p));
    Verdict v = make_verdict(check, kTolerance, "element");
    if (v.passed || check.worst < 0) return v;
    // Name the element by row and column, and say how many differ: one, a row, or all of them.
    const std::int64_t m = p.shape.m, total = std::int64_t(got.size());
    const auto ref = expected(p);
    std::int64_t differ = 0;
#pragma omp parallel for reduction(+ : differ) schedule(static)
    for (std::int64_t o = 0; o < total; ++o) differ += !(double(got[o]) == ref(o));
    const long long row = check.worst / m, col = check.worst % m;
    char line[320];
    std::snprintf(line, sizeof line,
                  "B row %lld, column %lld (A row %lld, column %lld): got %.9g, expected %.9g (relative error "
                  "%.3g, tolerance 0: exact); %lld of %lld elements differ",
                  row, col, col, row, check.worst_got, check.worst_ref, check.max_rel_error,
                  static_cast<long long>(differ), static_cast<long long>(total));
    v.detail = line;
    return v;
  }
};

}  // namespace
LB_REGISTER_WORKLOAD(Transpose, 45);
}  // namespace lb
