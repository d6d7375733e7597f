// Workload specs on the CPU: inputs, references on hand-computed cases, and verify() rejecting
// wrong, NaN and unwritten elements.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include <cuda_runtime.h>

#include <cstring>

#include "common/cuda_check.h"
#include "common/gpu.h"
#include "workloads/fill_random.h"
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
      if (w->descriptor().recipe.output) EXPECT_FALSE(std::isnan(v));  // saxpy's y
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

// --- the one generator (random_draw.h): exact, the same on host and device --------------------

// Evaluated by the compiler (exact integer and float arithmetic, no FMA contraction, no -march):
// the runtime values, built with -O3 on the host and by nvcc on the device, must be these.
constexpr std::uint64_t kKey = random_draw::stream_key(12345, 0);
static_assert(random_draw::element(kKey, 0, Draw::kUnit) == random_draw::element(kKey, 0, Draw::kUnit));
constexpr float kConstUnit[4] = {random_draw::element(kKey, 0, Draw::kUnit), random_draw::element(kKey, 1, Draw::kUnit),
                                 random_draw::element(kKey, 2, Draw::kUnit), random_draw::element(kKey, 1000003, Draw::kUnit)};

TEST(RandomDraw, UnitValuesAreExactMultiplesOfTwoToTheMinus24InRange) {
  HostBuffer v = random_vector(1 << 20, 99, 3, Draw::kUnit);
  for (float x : v) {
    const float m = std::fabs(x);
    ASSERT_GE(m, 0.25f);
    ASSERT_LT(m, 1.0f);
    const double scaled = double(m) * 16777216.0;  // 2^24: a whole number in [2^22, 2^24)
    ASSERT_EQ(scaled, std::trunc(scaled)) << x;
  }
  // Each value is (2^22 + floor(3b/4)) 2^-24 for the element's 24 bits b, computed here in double.
  const std::uint64_t key = random_draw::stream_key(99, 3);
  for (std::uint64_t i : {0ull, 1ull, 77ull, 1048575ull}) {
    const std::uint64_t bits = random_draw::mix(key + i);
    const std::uint64_t b = bits >> 40;
    const double m = double((1ull << 22) + (3 * b) / 4) / 16777216.0;
    EXPECT_EQ(double(v[i]), (bits & 1u) ? -m : m) << i;
  }
  // The compiler's exact evaluation and the optimised runtime loop agree bit for bit.
  const HostBuffer w = random_vector(1000004, 12345, 0, Draw::kUnit);
  EXPECT_EQ(w[0], kConstUnit[0]);
  EXPECT_EQ(w[1], kConstUnit[1]);
  EXPECT_EQ(w[2], kConstUnit[2]);
  EXPECT_EQ(w[1000003], kConstUnit[3]);
}

TEST(RandomDraw, IntegersAreWholeNumbersFrom1To255WithBothSigns) {
  const HostBuffer v = random_vector(100000, 5, 0, Draw::kIntegers);
  std::set<float> seen;
  for (float x : v) {
    ASSERT_EQ(x, std::trunc(x));
    ASSERT_GE(std::fabs(x), 1.0f);
    ASSERT_LE(std::fabs(x), 255.0f);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 510u);  // every magnitude, both signs
}

// Each workload's problem is its recipe, drawn from the streams the workloads have always used
// (so a recorded seed still names the same kind of inputs): vector_add a, b from streams 0, 1;
// saxpy x 0, y 1, alpha 2 in [0.5, 2); reduce x 0 as whole numbers; matmul A 0, B 1; transpose A 0.
TEST(Recipe, MakeProblemIsTheRecipeDrawnOnTheHost) {
  const std::uint64_t seed = 4242;
  for (const Workload* w : all_workloads()) {
    const Shape s = w->size_form() == SizeForm::kCount ? Shape{1, 1001, 1} : Shape{7, 9, 11};
    const HostProblem p = w->make_problem(s, seed);
    const InputRecipe& r = w->descriptor().recipe;
    ASSERT_EQ(r.inputs.size(), p.inputs.size()) << w->name();
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      const HostBuffer want = random_vector(std::int64_t(p.inputs[i].size()), seed, r.inputs[i].stream, r.inputs[i].draw);
      EXPECT_EQ(std::memcmp(want.data(), p.inputs[i].data(), want.size() * sizeof(float)), 0) << w->name() << " " << i;
      EXPECT_EQ(r.inputs[i].stream, i) << w->name();  // input i: stream i
    }
    if (r.scalar) EXPECT_EQ(p.alpha, random_scalar(seed, r.scalar->stream, r.scalar->lo, r.scalar->hi));
    else EXPECT_EQ(p.alpha, 0.0f) << w->name();
  }
  const InputRecipe& saxpy = W("saxpy").descriptor().recipe;
  ASSERT_TRUE(saxpy.output && saxpy.scalar);
  EXPECT_EQ(saxpy.output->stream, 1u);
  EXPECT_EQ(saxpy.scalar->stream, 2u);
  EXPECT_EQ(saxpy.scalar->lo, 0.5f);
  EXPECT_EQ(saxpy.scalar->hi, 2.0f);
  EXPECT_EQ(W("reduce").descriptor().recipe.inputs.at(0).draw, Draw::kIntegers);
  EXPECT_EQ(W("vector_add").descriptor().recipe.inputs.at(1).draw, Draw::kUnit);
}

// --- on a GPU: the device fill writes the host's values, bit for bit ---------------------------

struct DeviceFloats {
  explicit DeviceFloats(std::size_t n) : count(n) { LB_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(float))); }
  ~DeviceFloats() { cudaFree(p); }
  HostBuffer download() const {
    HostBuffer h(count);
    LB_CUDA_CHECK(cudaMemcpy(h.data(), p, count * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
  }
  float* p = nullptr;
  std::size_t count;
};

bool same_bits(const HostBuffer& a, const HostBuffer& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(DeviceFill, EqualsTheHostFillBitForBitOnTheGpu) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  for (const Draw draw : {Draw::kUnit, Draw::kIntegers})
    for (const std::int64_t n : {1, 255, 257, 1000003, (1 << 20) + 7}) {
      DeviceFloats d(static_cast<std::size_t>(n));
      fill_random_on_device(d.p, n, random_draw::stream_key(77, 5), draw, nullptr);
      LB_CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_TRUE(same_bits(d.download(), random_vector(n, 77, 5, draw))) << "n = " << n;
    }
  DeviceFloats d(1001);
  fill_nan_on_device(d.p, 1001, nullptr);
  LB_CUDA_CHECK(cudaDeviceSynchronize());
  for (float v : d.download()) ASSERT_TRUE(std::isnan(v));
}

TEST(DeviceFill, EveryWorkloadsRecipeOnTheDeviceIsItsHostProblemOnTheGpu) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  for (const Workload* w : all_workloads()) {
    const Shape s = w->size_form() == SizeForm::kCount ? Shape{1, 100003, 1} : Shape{67, 129, 33};
    const HostProblem p = recipe_problem(*w, s, 31337);
    std::vector<std::unique_ptr<DeviceFloats>> inputs;
    std::vector<float*> pointers;
    for (const HostBuffer& in : p.inputs) {
      inputs.push_back(std::make_unique<DeviceFloats>(in.size()));
      pointers.push_back(inputs.back()->p);
    }
    DeviceFloats out(p.output.size());
    const float alpha = recipe_on_device(*w, s, 31337, pointers, out.p, nullptr);
    LB_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(alpha, p.alpha) << w->name();
    for (std::size_t i = 0; i < p.inputs.size(); ++i) EXPECT_TRUE(same_bits(inputs[i]->download(), p.inputs[i])) << w->name();
    const HostBuffer got = out.download();
    if (w->descriptor().recipe.output) EXPECT_TRUE(same_bits(got, p.output)) << w->name();
    else for (float v : got) ASSERT_TRUE(std::isnan(v)) << w->name();
  }
}

}  // namespace
}  // namespace lb
