// Workload specs on the CPU: inputs, references on hand-computed cases, and verify() rejecting
// wrong, NaN and unwritten elements.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "workloads/problem.h"

namespace lb {
namespace {

const Workload& W(const char* name) {
  const Workload* w = find_workload(name);
  if (!w) throw std::runtime_error(std::string("no workload ") + name);
  return *w;
}

std::uint64_t fresh_seed() { return std::random_device{}(); }

// The correctly rounded result, computed in double.
std::vector<float> exact(const HostProblem& p, const std::string& workload) {
  const auto& in = p.inputs;
  const Shape s = p.shape;
  std::vector<float> out(p.output.size());
  if (workload == "vector_add")
    for (std::int64_t i = 0; i < s.n; ++i) out[i] = float(double(in[0][i]) + in[1][i]);
  if (workload == "saxpy")
    for (std::int64_t i = 0; i < s.n; ++i) out[i] = float(double(p.alpha) * in[0][i] + p.output[i]);
  if (workload == "reduce") {
    double sum = 0;
    for (float v : in[0]) sum += v;
    out[0] = float(sum);
  }
  if (workload == "matmul") {
    std::vector<double> row(s.n);
    for (std::int64_t i = 0; i < s.m; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (std::int64_t l = 0; l < s.k; ++l)
        for (std::int64_t j = 0; j < s.n; ++j) row[j] += double(in[0][i * s.k + l]) * in[1][l * s.n + j];
      for (std::int64_t j = 0; j < s.n; ++j) out[i * s.n + j] = float(row[j]);
    }
  }
  if (workload == "transpose")
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) out[j * s.m + i] = in[0][i * s.n + j];
  return out;
}

TEST(Registry, HasTheWorkloadsInOrder) {
  std::vector<std::string> names;
  for (const Workload* w : all_workloads()) names.push_back(w->name());
  EXPECT_EQ(names, (std::vector<std::string>{"vector_add", "saxpy", "reduce", "matmul", "transpose", "launch_async", "launch_sync"}));
  EXPECT_EQ(find_workload("nope"), nullptr);
}

TEST(Inputs, RandomNonZeroSeededAndDistinct) {
  const auto a = random_vector(100000, 42, 0);
  const auto same = random_vector(100000, 42, 0);
  const auto other_seed = random_vector(100000, 43, 0);
  const auto other_stream = random_vector(100000, 42, 1);
  EXPECT_EQ(a, same);
  EXPECT_NE(a, other_seed);
  EXPECT_NE(a, other_stream);
  int negative = 0;
  for (float v : a) {
    ASSERT_GE(std::fabs(v), 0.25f);
    ASSERT_LT(std::fabs(v), 1.0f);
    negative += v < 0;
  }
  EXPECT_NEAR(negative, 50000, 1000);  // signs are balanced
  EXPECT_GT(std::set<float>(a.begin(), a.end()).size(), 90000u);
}

TEST(Launch, VerifiesTheLastLaunchIndexExactly) {
  for (const char* name : {"launch_async", "launch_sync"}) {
    const HostProblem p = W(name).make_problem({1, 1000, 1}, 3);
    EXPECT_EQ(W(name).launches(p.shape), 1000);
    EXPECT_TRUE(W(name).verify(p, std::vector<float>{1000.0f}).passed);
    EXPECT_FALSE(W(name).verify(p, std::vector<float>{999.0f}).passed);  // one launch missing
    EXPECT_FALSE(W(name).verify(p, p.output).passed);                    // nothing ran: poison
  }
}

TEST(Inputs, OutputsStartPoisonedExceptSaxpy) {
  for (const Workload* w : all_workloads()) {
    const HostProblem p = w->make_problem(w->size_form() != SizeForm::kCount ? Shape{3, 4, 5} : Shape{1, 10, 1}, 1);
    EXPECT_EQ(std::int64_t(p.output.size()), w->output_elements(p.shape)) << w->name();
    for (float v : p.output) {
      if (w->name() == "saxpy") EXPECT_FALSE(std::isnan(v));
      else EXPECT_TRUE(std::isnan(v)) << w->name();
    }
  }
}

TEST(Counts, BytesAndFlopsFollowTheDesignTable) {
  EXPECT_EQ(W("vector_add").bytes_moved({1, 1000, 1}), 12000);
  EXPECT_EQ(W("saxpy").bytes_moved({1, 1000, 1}), 12000);
  EXPECT_EQ(W("saxpy").flops({1, 1000, 1}), 2000);
  EXPECT_EQ(W("reduce").bytes_moved({1, 1000, 1}), 4000);
  EXPECT_EQ(W("matmul").bytes_moved({2, 3, 4}), 4 * (2 * 4 + 4 * 3 + 2 * 3));
  EXPECT_EQ(W("matmul").flops({2, 3, 4}), 2 * 2 * 3 * 4);
  EXPECT_EQ(W("transpose").bytes_moved({2, 3, 1}), 8 * 2 * 3);
  EXPECT_EQ(W("transpose").flops({2, 3, 1}), 0);
  // Read and written apart (the plausibility bound's split); bytes_moved is their sum.
  EXPECT_EQ(W("vector_add").bytes_read({1, 1000, 1}), 8000);
  EXPECT_EQ(W("saxpy").bytes_written({1, 1000, 1}), 4000);
  EXPECT_EQ(W("reduce").bytes_written({1, 1000, 1}), 0);
  EXPECT_EQ(W("matmul").bytes_read({2, 3, 4}), 4 * (2 * 4 + 4 * 3));
  EXPECT_EQ(W("transpose").bytes_written({2, 3, 1}), 4 * 2 * 3);
}

TEST(HandComputed, VectorAdd) {
  HostProblem p{{1, 2, 1}, 0, 0, {{1.0f, 2.5f}, {3.0f, -0.5f}}, poisoned(2)};
  EXPECT_TRUE(W("vector_add").verify(p, std::vector<float>{4.0f, 2.0f}).passed);
  EXPECT_FALSE(W("vector_add").verify(p, std::vector<float>{4.0f, 2.001f}).passed);
}

TEST(HandComputed, Saxpy) {
  HostProblem p{{1, 2, 1}, 0, 2.0f, {{1.0f, -1.0f}}, {0.5f, 3.0f}};
  EXPECT_TRUE(W("saxpy").verify(p, std::vector<float>{2.5f, 1.0f}).passed);
  EXPECT_FALSE(W("saxpy").verify(p, std::vector<float>{0.5f, 3.0f}).passed);  // y left as it was
}

TEST(HandComputed, Reduce) {
  HostProblem p{{1, 3, 1}, 0, 0, {{1.0f, 2.0f, 3.5f}}, poisoned(1)};
  EXPECT_TRUE(W("reduce").verify(p, std::vector<float>{6.5f}).passed);
  EXPECT_FALSE(W("reduce").verify(p, std::vector<float>{6.6f}).passed);
  EXPECT_FALSE(W("reduce").verify(p, std::vector<float>{NAN}).passed);
}

TEST(HandComputed, Matmul) {
  // [[1 2 3] [4 5 6]] * [[7 8] [9 10] [11 12]] = [[58 64] [139 154]]
  HostProblem p{{2, 2, 3}, 0, 0, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}, poisoned(4)};
  EXPECT_TRUE(W("matmul").verify(p, std::vector<float>{58, 64, 139, 154}).passed);
  const Verdict wrong = W("matmul").verify(p, std::vector<float>{58, 64, 139, 155});
  EXPECT_FALSE(wrong.passed);
  EXPECT_NE(wrong.detail.find("element"), std::string::npos) << wrong.detail;
  EXPECT_FALSE(W("matmul").verify(p, std::vector<float>{58, NAN, 139, 154}).passed);
}

TEST(HandComputed, Transpose) {
  // [[1 2 3] [4 5 6]]^T = [[1 4] [2 5] [3 6]]
  HostProblem p{{2, 3, 1}, 0, 0, {{1, 2, 3, 4, 5, 6}}, poisoned(6)};
  const Workload& t = W("transpose");
  EXPECT_TRUE(t.verify(p, std::vector<float>{1, 4, 2, 5, 3, 6}).passed);
  EXPECT_FALSE(t.verify(p, std::vector<float>{1, 2, 3, 4, 5, 6}).passed);  // copied, not transposed
  // Exact: one ulp off fails, and the detail names B's row and column and A's.
  const Verdict ulp = t.verify(p, std::vector<float>{1, 4, 2, 5, std::nextafter(3.0f, 4.0f), 6});
  EXPECT_FALSE(ulp.passed);
  EXPECT_EQ(ulp.tolerance, 0.0);
  EXPECT_NE(ulp.detail.find("B row 2, column 0 (A row 0, column 2)"), std::string::npos) << ulp.detail;
  EXPECT_NE(ulp.detail.find("1 of 6 elements differ"), std::string::npos) << ulp.detail;
  EXPECT_FALSE(t.verify(p, std::vector<float>{1, 4, 2, NAN, 3, 6}).passed);
  // A zero in a hand-built A is checked like any other value.
  HostProblem zero{{1, 2, 1}, 0, 0, {{0, -2}}, poisoned(2)};
  EXPECT_TRUE(t.verify(zero, std::vector<float>{0, -2}).passed);
  EXPECT_FALSE(t.verify(zero, std::vector<float>{1e-45f, -2}).passed);
  const Reference ref = t.reference(p);
  EXPECT_EQ(ref.expected, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(ref.tolerance, 0.0);
}

struct VerifyCase {
  const char* workload;
  Shape shape;
  friend void PrintTo(const VerifyCase& c, std::ostream* os) { *os << c.workload; }
};

class VerifyRandom : public ::testing::TestWithParam<VerifyCase> {};

TEST_P(VerifyRandom, AcceptsCorrectRejectsPlantedNanAndUnwritten) {
  const Workload& w = W(GetParam().workload);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostProblem p = w.make_problem(GetParam().shape, seed);
  const std::vector<float> good = exact(p, w.name());

  const Verdict ok = w.verify(p, good);
  EXPECT_TRUE(ok.passed) << ok.detail;
  EXPECT_LE(ok.max_rel_error, ok.tolerance);

  std::mt19937_64 rng(seed);
  const auto at = std::uniform_int_distribution<std::size_t>(0, good.size() - 1)(rng);
  std::vector<float> planted = good;
  // Far outside every tolerance (reduce asks for the exact sum; the others allow a rounding or two).
  planted[at] = planted[at] * 1.01f + (w.name() == "reduce" ? 1e4f : w.name() == "matmul" ? 100.0f : 0.5f);
  EXPECT_FALSE(w.verify(p, planted).passed) << "planted error at " << at;

  std::vector<float> with_nan = good;
  with_nan[at] = NAN;
  EXPECT_FALSE(w.verify(p, with_nan).passed) << "NaN at " << at;

  // An element nothing wrote still holds what the output started with: poison, or y for saxpy.
  std::vector<float> unwritten = good;
  unwritten[at] = p.output[at];
  EXPECT_FALSE(w.verify(p, unwritten).passed) << "unwritten element " << at;
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, VerifyRandom,
    ::testing::Values(VerifyCase{"vector_add", {1, 1, 1}}, VerifyCase{"vector_add", {1, 1000003, 1}},
                      VerifyCase{"saxpy", {1, 1, 1}}, VerifyCase{"saxpy", {1, 129, 1}},
                      VerifyCase{"reduce", {1, 1, 1}}, VerifyCase{"reduce", {1, 1000003, 1}},
                      VerifyCase{"matmul", {1, 1, 1}}, VerifyCase{"matmul", {17, 33, 65}},
                      // above 2^30 multiply-adds: sampled rows and columns plus the row-sum check
                      VerifyCase{"matmul", {1030, 1030, 1030}}, VerifyCase{"transpose", {1, 1, 1}},
                      VerifyCase{"transpose", {33, 65, 1}}, VerifyCase{"transpose", {257, 255, 1}}),
    [](const auto& info) {
      const Shape s = info.param.shape;
      return std::string(info.param.workload) + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
             std::to_string(s.k);
    });

TEST(Tolerance, ReduceAsksForTheExactSumOfWholeNumbers) {
  const Workload& r = W("reduce");
  for (std::int64_t n : {1, 100, 1000000}) {
    const auto p = r.make_problem({1, n, 1}, 1);
    for (float v : p.inputs[0]) ASSERT_TRUE(v == std::trunc(v) && std::fabs(v) >= 1 && std::fabs(v) <= 255) << v;
    const Reference ref = r.reference(p);
    EXPECT_DOUBLE_EQ(ref.tolerance * ref.scale[0], 0.5) << "n = " << n;  // half a whole number
    EXPECT_NE(ref.expected[0], 0.0);
  }
  // A problem of real numbers (built by hand) gets the bound of a long fp32 sum instead.
  HostProblem real{{1, 100, 1}, 0, 0, {random_vector(100, 1, 0)}, poisoned(1)};
  EXPECT_NEAR(r.reference(real).tolerance, 2.0 * 10.0 * kFloatEps, 1e-15);
}

}  // namespace
}  // namespace lb
