// matmul: C = A * B, fp32, row-major; A is m x k, B is k x n, C is m x n.
// Bytes: 4(mk + kn + mn) (each matrix once); flops: 2mnk.
// Inputs: inputs[0] = A, inputs[1] = B. Output: C, poisoned with NaN before each verified run.
// Tolerance: |C_ij - ref_ij| <= 2 sqrt(k) eps * sum_l |A_il| |B_lj|, eps = 2^-23, the same rule as
// reduce for a sum of k products. Checked:
//  - every element when m*n*k <= 2^30 (the double-precision reference is then cheap);
//  - above that, every element of 32 rows and 32 columns (first, last and 30 random of each), and
//  - always, for every row i, sum_j C_ij r_j against sum_l A_il (B r)_l with random signs r_j
//    (Freivalds' check, its bound below): any NaN or any element far off shows up in its row's sum.
#include <algorithm>
#include <random>

#include "workloads/problem.h"

namespace lb {
namespace {

constexpr std::int64_t kFullCheckLimit = std::int64_t{1} << 30;
constexpr int kSampled = 32;

class Matmul final : public Workload {
 public:
  Matmul()
      : Workload({.name = "matmul",
                  .summary = "C = A*B, fp32, row-major, A MxK, B KxN",
                  .figure = Figure::kCompute,
                  .size_form = SizeForm::kProduct,
                  .inputs = {{"A", {Dim::kM, Dim::kK}}, {"B", {Dim::kK, Dim::kN}}},
                  .output = {"C", {Dim::kM, Dim::kN}},
                  .recipe = {.inputs = {{0, Draw::kUnit}, {1, Draw::kUnit}}},
                  .kernel_args = {{"A", ArgKind::kInput, 0, Dim::kN, "const float*"},
                                  {"B", ArgKind::kInput, 1, Dim::kN, "const float*"},
                                  {"C", ArgKind::kOutput, 0, Dim::kN, "float*"},
                                  {"M", ArgKind::kSize, 0, Dim::kM, "int"},
                                  {"N", ArgKind::kSize, 0, Dim::kN, "int"},
                                  {"K", ArgKind::kSize, 0, Dim::kK, "int"}},
                  .ladder_default_size = "4096",
                  .vendor = {"cuBLAS", "cublasSgemm"}}) {}
  std::vector<Shape> default_sizes() const override {
    return {{512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}};
  }
  double bytes_read(const Shape& s) const override { return 4.0 * (double(s.m) * s.k + double(s.k) * s.n); }  // A, B
  double bytes_written(const Shape& s) const override { return 4.0 * double(s.m) * s.n; }  // C
  double flops(const Shape& s) const override { return 2.0 * double(s.m) * s.n * s.k; }
  double host_bytes(const Shape& s) const override {
    return 4.0 * (double(s.m) * s.k + double(s.k) * s.n + 2.0 * double(s.m) * s.n);
  }

  // The full product in double, every element: m*n*k multiply-adds (the labs' check sizes).
  Reference reference(const HostProblem& p) const override {
    const Shape s = p.shape;
    Reference r;
    r.expected.resize(static_cast<std::size_t>(s.m * s.n));
    r.scale.resize(r.expected.size());
    r.tolerance = tolerance(s);
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t i = 0; i < s.m; ++i) reference_row(p, i, &r.expected[i * s.n], &r.scale[i * s.n]);
    return r;
  }

  Verdict verify(const HostProblem& p, std::span<const float> got) const override {
    const Shape s = p.shape;
    const double tol = tolerance(s);
    ElementCheck elements;
    if (double(s.m) * s.n * s.k <= double(kFullCheckLimit)) {
      std::vector<std::int64_t> rows(s.m);
      for (std::int64_t i = 0; i < s.m; ++i) rows[i] = i;
      merge_into(elements, check_rows(p, got, rows));
    } else {
      std::mt19937_64 rng(p.seed ^ 0xC0FFEEu);
      merge_into(elements, check_rows(p, got, sample(s.m, rng)));
      merge_into(elements, check_columns(p, got, sample(s.n, rng)));
    }
    Verdict v = make_verdict(elements, tol, "element (flat index)");
    const ElementCheck sums = check_row_sums(p, got);
    if (v.passed && sums.max_rel_error > tol) {
      v = make_verdict(sums, tol, "row-sum check, row");
    }
    v.max_rel_error = std::max(v.max_rel_error, sums.max_rel_error);
    return v;
  }

 private:
  static double tolerance(const Shape& s) { return 2.0 * std::sqrt(double(s.k)) * kFloatEps; }

  // Row i of C in double, and the scale of each element (sum_l |A_il| |B_lj|).
  static void reference_row(const HostProblem& p, std::int64_t i, double* ref, double* scale) {
    const Shape s = p.shape;
    const float* A = p.inputs[0].data();
    const float* B = p.inputs[1].data();
    std::fill(ref, ref + s.n, 0.0);
    std::fill(scale, scale + s.n, 0.0);
    for (std::int64_t l = 0; l < s.k; ++l) {
      const double a = A[i * s.k + l];
      const float* b = B + l * s.n;
      for (std::int64_t j = 0; j < s.n; ++j) {
        ref[j] += a * b[j];
        scale[j] += std::fabs(a) * std::fabs(double(b[j]));
      }
    }
  }

  static std::vector<std::int64_t> sample(std::int64_t count, std::mt19937_64& rng) {
    std::vector<std::int64_t> picked{0, count - 1};
    std::uniform_int_distribution<std::int64_t> pick(0, count - 1);
    for (int i = 0; i < kSampled - 2; ++i) picked.push_back(pick(rng));
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    return picked;
  }

  // Every element of the given rows, each row's reference computed in double.
  static ElementCheck check_rows(const HostProblem& p, std::span<const float> got,
                                 const std::vector<std::int64_t>& rows) {
    const Shape s = p.shape;
    ElementCheck total;
#pragma omp parallel
    {
      ElementCheck local;
      std::vector<double> ref(s.n), scale(s.n);
#pragma omp for schedule(dynamic)
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const std::int64_t i = rows[r];
        reference_row(p, i, ref.data(), scale.data());
        const auto row = check_elements(
            got.subspan(i * s.n, s.n), [&](std::int64_t j) { return ref[j]; },
            [&](std::int64_t j) { return scale[j]; });
        ElementCheck flat = row;
        flat.worst = i * s.n + row.worst;
        merge_into(local, flat);
      }
#pragma omp critical
      merge_into(total, local);
    }
    return total;
  }

  // Every element of the given columns.
  static ElementCheck check_columns(const HostProblem& p, std::span<const float> got,
                                    const std::vector<std::int64_t>& cols) {
    const Shape s = p.shape;
    const float* A = p.inputs[0].data();
    const float* B = p.inputs[1].data();
    std::vector<double> bcols(cols.size() * s.k);  // the sampled columns of B, contiguous
    for (std::size_t c = 0; c < cols.size(); ++c)
      for (std::int64_t l = 0; l < s.k; ++l) bcols[c * s.k + l] = B[l * s.n + cols[c]];
    ElementCheck total;
#pragma omp parallel
    {
      ElementCheck local;
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < s.m; ++i) {
        for (std::size_t c = 0; c < cols.size(); ++c) {
          double ref = 0.0, scale = 0.0;
          for (std::int64_t l = 0; l < s.k; ++l) {
            const double a = A[i * s.k + l], b = bcols[c * s.k + l];
            ref += a * b;
            scale += std::fabs(a) * std::fabs(b);
          }
          const std::int64_t at = i * s.n + cols[c];
          double err = std::fabs(double(got[at]) - ref) / scale;
          if (std::isnan(err)) err = std::numeric_limits<double>::infinity();
          merge_into(local, ElementCheck{err, at, got[at], ref});
        }
      }
#pragma omp critical
      merge_into(total, local);
    }
    return total;
  }

  // Freivalds: (C r)_i against (A (B r))_i for random signs r, every row. If every element's error
  // e_ij is within its tolerance t_ij = tol * scale_ij, the row's error sum_j e_ij r_j is at most
  // sum_j t_ij (the worst case), and since the signs are drawn apart from the result, it exceeds
  // kRowSumLambda * sqrt(sum_j t_ij^2) with probability at most 2 exp(-kRowSumLambda^2 / 2)
  // (Hoeffding), about 1e-14. scale_ij <= sum_l |A_il| * max_l |B_lj|, so the row is allowed the
  // smaller of the two bounds: at n = 4096 the second is about 8 times tighter, which catches a
  // wrong tile of 16 elements in a row no sampled check looked at.
  static constexpr double kRowSumLambda = 8.0;
  static ElementCheck check_row_sums(const HostProblem& p, std::span<const float> got) {
    const Shape s = p.shape;
    const float* A = p.inputs[0].data();
    const float* B = p.inputs[1].data();
    const HostBuffer signs = random_vector(s.n, p.seed, 7);  // only the signs are used
    auto r = [&](std::int64_t j) { return signs[j] < 0 ? -1.0 : 1.0; };
    std::vector<double> br(s.k), babs(s.k), colmax(s.n, 0.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t l = 0; l < s.k; ++l) {
      double sum = 0.0, sum_abs = 0.0;
      for (std::int64_t j = 0; j < s.n; ++j) {
        sum += B[l * s.n + j] * r(j);
        sum_abs += std::fabs(double(B[l * s.n + j]));
      }
      br[l] = sum;
      babs[l] = sum_abs;
    }
    for (std::int64_t l = 0; l < s.k; ++l)
      for (std::int64_t j = 0; j < s.n; ++j) colmax[j] = std::max(colmax[j], std::fabs(double(B[l * s.n + j])));
    double colmax_squares = 0.0;
    for (double c : colmax) colmax_squares += c * c;
    const double spread = kRowSumLambda * std::sqrt(colmax_squares);
    ElementCheck total;
#pragma omp parallel
    {
      ElementCheck local;
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < s.m; ++i) {
        double lhs = 0.0, rhs = 0.0, worst_case = 0.0, row_abs = 0.0;
        for (std::int64_t j = 0; j < s.n; ++j) lhs += got[i * s.n + j] * r(j);
        for (std::int64_t l = 0; l < s.k; ++l) {
          const double a = A[i * s.k + l];
          rhs += a * br[l];
          worst_case += std::fabs(a) * babs[l];
          row_abs += std::fabs(a);
        }
        double err = std::fabs(lhs - rhs) / std::min(worst_case, spread * row_abs);
        if (std::isnan(err)) err = std::numeric_limits<double>::infinity();
        merge_into(local, ElementCheck{err, i, lhs, rhs});
      }
#pragma omp critical
      merge_into(total, local);
    }
    return total;
  }
};

}  // namespace
LB_REGISTER_WORKLOAD(Matmul, 40);
}  // namespace lb
