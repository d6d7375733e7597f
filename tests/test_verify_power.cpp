// The mutation-kill suite, host side (no GPU): each workload's verify() is given a correct result
// and that result corrupted the ways wrong kernels corrupt it, at every default size and every edge
// size, and must accept the first and reject every corruption docs/workloads.md says it detects.
// A required class that the check cannot detect at some size fails the test as loudly as a
// corruption that passes. The kill table goes to stdout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>

#include "tests/layer_rig.h"
#include "tests/sanitized_build.h"
#include "workloads/problem.h"

namespace lb {
namespace {

using Result = std::vector<float>;

// A corruption: from the problem and a correct result, the result a wrong kernel would give.
// `required`: the check must reject it at this size; otherwise it must reject it exactly when its
// deviation stands above the rounding bound (reduce's block of 256 at large n).
struct Mutation {
  const char* name;
  const char* what;
  std::function<Result(const HostProblem&, const Result&)> corrupt;
  std::function<bool(const Shape&)> applies = [](const Shape&) { return true; };
  bool required = true;
};

const Workload& W(const std::string& name) { return *find_workload(name); }

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Elements [at, at + count) of `r` replaced by `value` (their starting contents when value is null).
Result overwrite(const HostProblem& p, Result r, std::int64_t at, std::int64_t count, const float* value) {
  for (std::int64_t i = at; i < std::min<std::int64_t>(at + count, std::int64_t(r.size())); ++i)
    r[i] = value ? *value : p.output[i];
  return r;
}
// Where a wrong block of 256 starts: a whole block inside the output, seeded by the problem.
std::int64_t block_start(const HostProblem& p, std::int64_t size) {
  const std::int64_t blocks = std::max<std::int64_t>(1, size / 256);
  return 256 * static_cast<std::int64_t>(p.seed % static_cast<std::uint64_t>(blocks));
}
// Every element i with i % 100 == 7 (and element 0 where n < 100: one element is more than 1%).
template <class F>
void each_hundredth(std::int64_t n, F&& f) {
  if (n < 100) return f(std::int64_t{0});
  for (std::int64_t i = 7; i < n; i += 100) f(i);
}

// The element-wise workloads' corruptions that do not depend on the operation.
std::vector<Mutation> elementwise_common() {
  static const float zero = 0.0f, nan = kNaN;
  return {
      {"zero", "every element 0", [](const HostProblem&, const Result& r) { return Result(r.size(), 0.0f); }},
      {"unwritten", "nothing written", [](const HostProblem& p, const Result&) { return Result(p.output.begin(), p.output.end()); }},
      {"block_unwritten", "one block's 256 elements unwritten",
       [](const HostProblem& p, const Result& r) { return overwrite(p, r, block_start(p, r.size()), 256, nullptr); }},
      {"block_zero", "one block's 256 elements 0",
       [](const HostProblem& p, const Result& r) { return overwrite(p, r, block_start(p, r.size()), 256, &zero); }},
      {"tail_unwritten", "the last element unwritten",
       [](const HostProblem& p, const Result& r) { return overwrite(p, r, r.size() - 1, 1, nullptr); }},
      {"one_nan", "one element NaN",
       [](const HostProblem& p, const Result& r) { return overwrite(p, r, r.size() / 2, 1, &nan); }},
  };
}

Result vector_add_of(const HostProblem& p, const std::function<double(std::int64_t)>& b_at,
                     const std::function<bool(std::int64_t)>& keep_b) {
  Result out(p.shape.n);
  const float* a = p.inputs[0].data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < p.shape.n; ++i) out[i] = float(double(a[i]) + (keep_b(i) ? b_at(i) : 0.0));
  return out;
}

std::vector<Mutation> vector_add_mutations() {
  std::vector<Mutation> m = elementwise_common();
  m.push_back({"drop_1pct", "b left out of 1% of the elements", [](const HostProblem& p, const Result&) {
                 const float* b = p.inputs[1].data();
                 return vector_add_of(p, [b](std::int64_t i) { return double(b[i]); },
                                      [&](std::int64_t i) { return p.shape.n < 100 ? i != 0 : i % 100 != 7; });
               }});
  m.push_back({"shifted_b", "reads b[i + 1] (the last element b[i])",
               [](const HostProblem& p, const Result&) {
                 const float* b = p.inputs[1].data();
                 const std::int64_t n = p.shape.n;
                 return vector_add_of(p, [b, n](std::int64_t i) { return double(b[i + 1 < n ? i + 1 : 0]); },
                                      [](std::int64_t) { return true; });
               },
               [](const Shape& s) { return s.n > 1; }});
  m.push_back({"subtracts", "a - b", [](const HostProblem& p, const Result&) {
                 const float* b = p.inputs[1].data();
                 return vector_add_of(p, [b](std::int64_t i) { return -double(b[i]); }, [](std::int64_t) { return true; });
               }});
  return m;
}

Result saxpy_of(const HostProblem& p, double alpha, std::int64_t shift) {
  Result out(p.shape.n);
  const float* x = p.inputs[0].data();
  const std::int64_t n = p.shape.n;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) out[i] = float(alpha * x[(i + shift) % n] + p.output[i]);
  return out;
}

std::vector<Mutation> saxpy_mutations() {
  std::vector<Mutation> m = elementwise_common();  // saxpy's "unwritten" is y as it was
  m.push_back({"drop_1pct", "1% of the elements keep y", [](const HostProblem& p, const Result& r) {
                 Result out = r;
                 each_hundredth(p.shape.n, [&](std::int64_t i) { out[i] = p.output[i]; });
                 return out;
               }});
  m.push_back({"alpha_one", "alpha taken as 1", [](const HostProblem& p, const Result&) { return saxpy_of(p, 1.0, 0); }});
  m.push_back({"alpha_off", "alpha off by 2^-10 of itself", [](const HostProblem& p, const Result&) {
                 return saxpy_of(p, double(p.alpha) * (1.0 + 0x1p-10), 0);
               }});
  m.push_back({"shifted_x", "reads x[i + 1]", [](const HostProblem& p, const Result&) { return saxpy_of(p, p.alpha, 1); },
               [](const Shape& s) { return s.n > 1; }});
  return m;
}

// reduce's corruptions: sums of the input with some elements left out, in double, rounded once.
Result sum_without(const HostProblem& p, const std::function<bool(std::int64_t)>& dropped) {
  const HostBuffer& x = p.inputs[0];
  double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(x.size()); ++i) sum += dropped(i) ? 0.0 : double(x[i]);
  return {float(sum)};
}

std::vector<Mutation> reduce_mutations() {
  const auto larger = [](std::int64_t n) { return [n](const Shape& s) { return s.n > n; }; };
  return {
      {"zero", "0", [](const HostProblem&, const Result&) { return Result{0.0f}; }},
      {"unwritten", "nothing written (NaN)", [](const HostProblem& p, const Result&) { return Result{p.output[0]}; }},
      {"drop_1pct", "skips every 100th element",
       [](const HostProblem& p, const Result&) {
         return sum_without(p, [&](std::int64_t i) { return p.shape.n < 100 ? i == 0 : i % 100 == 7; });
       }},
      {"drop_first", "starts at x[1] (a shifted index)",
       [](const HostProblem& p, const Result&) { return sum_without(p, [](std::int64_t i) { return i == 0; }); }},
      {"drop_last", "stops before x[n - 1] (a lost tail)",
       [](const HostProblem& p, const Result&) {
         return sum_without(p, [n = p.shape.n](std::int64_t i) { return i == n - 1; });
       }},
      {"prefix_2^20", "adds only the first 2^20 elements",
       [](const HostProblem& p, const Result&) { return sum_without(p, [](std::int64_t i) { return i >= (1 << 20); }); },
       larger(1 << 20)},
      {"half", "adds only the first half", [](const HostProblem& p, const Result&) {
         return sum_without(p, [n = p.shape.n](std::int64_t i) { return i >= n / 2; });
       },
       larger(1)},
      {"block_256", "one block's 256 elements left out (inside, not at an end)",
       [](const HostProblem& p, const Result&) {
         const std::int64_t at = std::max<std::int64_t>(1, block_start(p, p.shape.n - 257));
         return sum_without(p, [at](std::int64_t i) { return i >= at && i < at + 256; });
       },
       larger(257), /*required=*/false},
  };
}

// matmul: a correct product from the cpu layer (a legitimate fp32 result, OpenBLAS or blocked
// loops), and the products of misread operands computed by the same layer.
class CpuMatmul {
 public:
  Result product(const HostProblem& p) {
    const std::unique_ptr<Variant> v = rig_.make(W("matmul"), p.shape);
    rig_.check(*v, W("matmul"), p);
    return Result(rig_.result().begin(), rig_.result().end());
  }

 private:
  LayerRig rig_{*find_layer("cpu")};
};

std::vector<Mutation> matmul_mutations() {
  static const float zero = 0.0f;
  return {
      {"zero", "every element 0", [](const HostProblem&, const Result& r) { return Result(r.size(), 0.0f); }},
      {"unwritten", "nothing written", [](const HostProblem& p, const Result&) { return Result(p.output.begin(), p.output.end()); }},
      {"tile_zero", "one 16x16 tile (256 elements) 0",
       [](const HostProblem& p, const Result& r) {
         Result out = r;
         const Shape s = p.shape;
         const std::int64_t i0 = 16 * std::int64_t(p.seed % std::uint64_t(std::max<std::int64_t>(1, s.m / 16)));
         const std::int64_t j0 = 16 * std::int64_t((p.seed >> 20) % std::uint64_t(std::max<std::int64_t>(1, s.n / 16)));
         for (std::int64_t i = i0; i < std::min(i0 + 16, s.m); ++i)
           for (std::int64_t j = j0; j < std::min(j0 + 16, s.n); ++j) out[i * s.n + j] = zero;
         return out;
       }},
      {"drop_1pct_k", "leaves out every 100th product of each dot product (the last one included)",
       [](const HostProblem& p, const Result& r) {
         Result out = r;
         const Shape s = p.shape;
         const float* A = p.inputs[0].data();
         const float* B = p.inputs[1].data();
#pragma omp parallel for schedule(static)
         for (std::int64_t i = 0; i < s.m; ++i) {
           std::vector<double> left_out(s.n, 0.0);
           for (std::int64_t l = (s.k - 1) % 100; l < s.k; l += 100)
             for (std::int64_t j = 0; j < s.n; ++j) left_out[j] += double(A[i * s.k + l]) * B[l * s.n + j];
           for (std::int64_t j = 0; j < s.n; ++j) out[i * s.n + j] = float(double(r[i * s.n + j]) - left_out[j]);
         }
         return out;
       }},
      {"shifted_rows", "reads row i + 1 of A (the last row reads row 0)",
       [](const HostProblem& p, const Result& r) {
         Result out(r.size());
         const Shape s = p.shape;
         for (std::int64_t i = 0; i < s.m; ++i)
           std::copy_n(r.begin() + ((i + 1) % s.m) * s.n, s.n, out.begin() + i * s.n);
         return out;
       },
       [](const Shape& s) { return s.m > 1; }},
      {"transposed_b", "reads B as if stored column by column (B[j*K + l])",
       [](const HostProblem& p, const Result&) {
         const Shape s = p.shape;
         HostProblem misread = p;
         HostBuffer& bt = misread.inputs[1];
         for (std::int64_t l = 0; l < s.k; ++l)
           for (std::int64_t j = 0; j < s.n; ++j) bt[l * s.n + j] = p.inputs[1][j * s.k + l];
         return CpuMatmul().product(misread);
       },
       [](const Shape& s) { return s.n > 1 && s.k > 1; }},  // else both readings are the same
  };
}

// transpose: B (n x m) = A^T, checked exactly. The corruptions move, drop or alter elements.
Result transposed(const HostProblem& p) {
  const Shape s = p.shape;
  const float* A = p.inputs[0].data();
  Result out(s.m * s.n);
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < s.n; ++j)
    for (std::int64_t i = 0; i < s.m; ++i) out[j * s.m + i] = A[i * s.n + j];
  return out;
}

std::vector<Mutation> transpose_mutations() {
  static const float nan = kNaN;
  return {
      {"zero", "every element 0", [](const HostProblem&, const Result& r) { return Result(r.size(), 0.0f); }},
      {"unwritten", "nothing written", [](const HostProblem& p, const Result&) { return Result(p.output.begin(), p.output.end()); }},
      {"one_nan", "one element NaN",
       [](const HostProblem& p, const Result& r) { return overwrite(p, r, r.size() / 2, 1, &nan); }},
      {"one_ulp", "one element one ulp up",
       [](const HostProblem&, const Result& r) {
         Result out = r;
         out[r.size() / 2] = std::nextafter(out[r.size() / 2], std::numeric_limits<float>::infinity());
         return out;
       }},
      {"swapped_pair", "two neighbouring elements of B swapped",
       [](const HostProblem& p, const Result& r) {
         Result out = r;
         const std::int64_t size = std::int64_t(r.size());
         const std::int64_t i = std::int64_t(p.seed % std::uint64_t(size));
         std::int64_t j = i + 1 < size ? i + 1 : i - 1;
         // Two equal values (probability 4e-8, transpose.cpp) swap into the same result: take the
         // next element that differs.
         for (std::int64_t tries = 0; out[j] == out[i] && tries < size; ++tries) j = (j + 1) % size;
         std::swap(out[i], out[j]);
         return out;
       },
       [](const Shape& s) { return s.m * s.n > 1; }},
      {"not_transposed", "A copied as it is (B[i][j] = A's flat element i*m + j)",
       [](const HostProblem& p, const Result&) { return Result(p.inputs[0].begin(), p.inputs[0].end()); },
       [](const Shape& s) { return s.m > 1 && s.n > 1; }},  // with one row or column a copy is the transpose
      {"last_row_unwritten", "B's last row (A's last column: a lost tail of N) unwritten",
       [](const HostProblem& p, const Result& r) {
         return overwrite(p, r, (p.shape.n - 1) * p.shape.m, p.shape.m, nullptr);
       }},
      {"last_column_unwritten", "B's last column (A's last row: a lost tail of M) unwritten",
       [](const HostProblem& p, const Result& r) {
         Result out = r;
         const std::int64_t m = p.shape.m;
         for (std::int64_t j = 0; j < p.shape.n; ++j) out[j * m + m - 1] = p.output[j * m + m - 1];
         return out;
       }},
  };
}

std::vector<Mutation> mutations_of(const std::string& workload) {
  if (workload == "vector_add") return vector_add_mutations();
  if (workload == "transpose") return transpose_mutations();
  if (workload == "saxpy") return saxpy_mutations();
  if (workload == "reduce") return reduce_mutations();
  return matmul_mutations();
}

// The correct result, rounded once from double (matmul: the cpu layer's product).
Result correct(const HostProblem& p, const std::string& workload) {
  if (workload == "matmul") return CpuMatmul().product(p);
  if (workload == "transpose") return transposed(p);  // the reference would be 16 bytes an element
  const Reference ref = W(workload).reference(p);
  Result out(ref.expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = float(ref.expected[i]);
  return out;
}

struct SizeCase {
  std::string workload;
  Shape shape;
  friend void PrintTo(const SizeCase& c, std::ostream* os) { *os << c.workload << " " << W(c.workload).size_label(c.shape); }
};

// Sizes the sanitized build leaves to the plain one: above 2^24 elements or products. A check at 2^26,
// the slowest of the sanitized run, goes through the same loops as at the sizes kept, the edge sizes
// among them, where an index one past the end would show.
bool too_big_for_this_build(const SizeCase& c) {
  return test::kSanitizedBuild && c.shape.m * c.shape.n * std::max<std::int64_t>(c.shape.k, 1) > (std::int64_t{1} << 24);
}

std::vector<SizeCase> all_sizes() {
  std::vector<SizeCase> cases;
  for (const char* name : {"vector_add", "saxpy", "reduce", "matmul", "transpose"}) {
    std::vector<Shape> shapes = W(name).default_sizes();
    for (const Shape& s : W(name).edge_sizes())
      if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
    for (const Shape& s : shapes) cases.push_back({name, s});
  }
  return cases;
}

class MutationKill : public ::testing::TestWithParam<SizeCase> {};

TEST_P(MutationKill, EveryCorruptionIsRejected) {
  const SizeCase& c = GetParam();
  if (too_big_for_this_build(c)) GTEST_SKIP() << "above 2^24 elements or products under AddressSanitizer: the plain build runs it";
  const Workload& w = W(c.workload);
  const std::uint64_t seed = case_seed(std::random_device{}(), w, c.shape);
  SCOPED_TRACE(c.workload + " " + w.size_label(c.shape) + " seed " + std::to_string(seed));
  const HostProblem p = w.make_problem(c.shape, seed);
  const Result good = correct(p, c.workload);
  const Verdict ok = w.verify(p, good);
  ASSERT_TRUE(ok.passed) << "a correct result was rejected: " << ok.detail;

  std::string row = c.workload + " " + w.size_label(c.shape) + ":";
  for (const Mutation& m : mutations_of(c.workload)) {
    if (!m.applies(c.shape)) continue;
    const Result wrong = m.corrupt(p, good);
    const Verdict v = w.verify(p, wrong);
    row += std::string(" ") + m.name + (v.passed ? "=SURVIVED" : "=killed");
    if (m.required) {
      EXPECT_FALSE(v.passed) << m.name << " (" << m.what << ") passed: max relative error " << v.max_rel_error
                             << " <= tolerance " << v.tolerance;
    } else if (c.workload == "reduce") {
      // Killed exactly when the deviation stands above the rounding bound, which verify() states.
      const Reference ref = w.reference(p);
      const double deviation = std::fabs(double(wrong[0]) - ref.expected[0]) / ref.scale[0];
      EXPECT_EQ(!v.passed, deviation > ref.tolerance) << m.name << " deviation " << deviation;
      row += "(" + std::string(deviation > ref.tolerance ? "above" : "below") + " the bound)";
    }
  }
  std::printf("%s\n", row.c_str());
}

INSTANTIATE_TEST_SUITE_P(DefaultAndEdgeSizes, MutationKill, ::testing::ValuesIn(all_sizes()), [](const auto& info) {
  const Shape s = info.param.shape;
  return info.param.workload + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
});

// reduce's detection limit, measured at the default sizes on fresh inputs: the fewest leading
// elements (after x[0]) whose loss the check catches, found by bisection on verify() itself (whole-
// number inputs: one), and the loss of any single element at the start, middle and end.
TEST(ReducePower, SmallestDroppedFractionCaught) {
  const Workload& w = W("reduce");
  for (const Shape& s : w.default_sizes()) {
    if (too_big_for_this_build({"reduce", s})) continue;
    const HostProblem p = w.make_problem(s, case_seed(std::random_device{}(), w, s));
    const HostBuffer& x = p.inputs[0];
    std::vector<double> prefix(x.size(), 0.0);  // prefix[m] = x[1] + ... + x[m]
    for (std::size_t i = 1; i < x.size(); ++i) prefix[i] = prefix[i - 1] + x[i];
    double total = 0.0;
    for (float v : x) total += v;
    const auto caught = [&](double dropped) { return !w.verify(p, Result{float(total - dropped)}).passed; };
    std::int64_t lo = 0, hi = s.n - 1;  // caught(prefix[hi]) holds unless x[1..n-1] sum to 0
    ASSERT_TRUE(caught(prefix[hi]));
    ASSERT_FALSE(caught(0.0));
    while (hi - lo > 1) (caught(prefix[(lo + hi) / 2]) ? hi : lo) = (lo + hi) / 2;
    std::printf("reduce n = %s: the check catches the loss of the first %lld element(s) (%.3g%% of n) and more\n",
                w.size_label(s).c_str(), static_cast<long long>(hi), 100.0 * double(hi) / double(s.n));
    EXPECT_EQ(hi, 1) << "whole-number inputs: one lost element is caught";
    for (const std::int64_t at : {std::int64_t{0}, s.n / 2, s.n - 1})
      EXPECT_TRUE(caught(x[at])) << "the loss of element " << at << " alone passed";
  }
}

}  // namespace
}  // namespace lb
