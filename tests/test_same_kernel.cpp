// The layers that run our kernel text with our launch shapes (driver, and the Python layers
// cupy-raw, cuda-bindings, cuda-core, pycuda, and cython, which calls the runtime layer's nvcc
// build of the kernels from Python) agree with the runtime layer on the same inputs: bit for bit for
// vector_add and saxpy (one operation per element) and transpose (no operation), and within the
// workload's tolerance for reduce and matmul. Needs a GPU (and, for the Python layers, their packages).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "tests/layer_rig.h"
#include "workloads/problem.h"

namespace lb {
namespace {

struct LayerOutput {
  Verdict verdict;
  HostBuffer result;
};

// The harness's verified run of `layer` on `p`, and what it downloaded.
LayerOutput run_layer(const std::string& layer, const Workload& w, const HostProblem& p) {
  LayerRig rig(*find_layer(layer));
  auto v = rig.make(w, p.shape);
  const Verdict verdict = rig.check(*v, w, p);
  return {verdict, rig.result()};
}

struct SameText {
  std::string layer, workload;
  friend void PrintTo(const SameText& p, std::ostream* os) { *os << p.layer << "/" << p.workload; }
};

class SameKernelText : public ::testing::TestWithParam<SameText> {};

TEST_P(SameKernelText, MatchesRuntime) {
  const std::string layer = GetParam().layer;
  for (const std::string name : {std::string("runtime"), layer}) {
    const Layer* l = find_layer(name);
    if (!l) GTEST_SKIP() << name << " is not registered in this build";
    if (const std::string why = l->unavailable_reason(); !why.empty()) GTEST_SKIP() << name << ": " << why;
  }
  const Workload& w = *find_workload(GetParam().workload);
  for (const Shape& s : w.edge_sizes()) {
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE(w.size_label(s) + " seed " + std::to_string(seed));
    const HostProblem p = w.make_problem(s, seed);
    const LayerOutput runtime = run_layer("runtime", w, p), other = run_layer(layer, w, p);
    const Verdict &rv = runtime.verdict, &ov = other.verdict;
    EXPECT_TRUE(rv.passed) << "runtime: " << rv.detail;
    EXPECT_TRUE(ov.passed) << layer << ": " << ov.detail;
    if (w.name() == "vector_add" || w.name() == "saxpy" || w.name() == "transpose") {
      ASSERT_EQ(runtime.result.size(), other.result.size());
      EXPECT_EQ(std::memcmp(runtime.result.data(), other.result.data(), runtime.result.size() * sizeof(float)), 0)
          << "outputs differ in some bit";
    } else {
      // Both within tolerance of the reference puts them within twice the tolerance of each other;
      // the closer bound is checked directly against the reference's scale by verify() above.
      EXPECT_LE(std::fabs(rv.max_rel_error - ov.max_rel_error), rv.tolerance);
    }
  }
}

// matmul's split-K adds the splits' parts in a fixed order (workloads/matmul/kernels.cu): two runs
// of one layer on the same inputs give the same bits, where K is split (512^3, 128x1x300 on 132 SMs)
// and where it is not.
TEST(SplitK, SameBitsEveryRun) {
  const Layer* runtime = find_layer("runtime");
  if (const std::string why = runtime->unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const Workload& w = *find_workload("matmul");
  for (const Shape& s : {Shape{512, 512, 512}, Shape{128, 1, 300}, Shape{17, 33, 65}}) {
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE(w.size_label(s) + " seed " + std::to_string(seed));
    const HostProblem p = w.make_problem(s, seed);
    const LayerOutput first = run_layer("runtime", w, p), second = run_layer("runtime", w, p);
    EXPECT_TRUE(first.verdict.passed) << first.verdict.detail;
    ASSERT_EQ(first.result.size(), second.result.size());
    EXPECT_EQ(std::memcmp(first.result.data(), second.result.data(), first.result.size() * sizeof(float)), 0)
        << "two runs differ in some bit";
  }
}

std::vector<SameText> same_text_pairs() {
  std::vector<SameText> pairs;
  for (const char* layer : {"driver", "cupy-raw", "cuda-bindings", "cuda-core", "pycuda", "cython"})
    for (const char* workload : {"vector_add", "saxpy", "reduce", "matmul", "transpose"})
      pairs.push_back({layer, workload});
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(Layers, SameKernelText, ::testing::ValuesIn(same_text_pairs()), [](const auto& info) {
  std::string name = info.param.layer + "_" + info.param.workload;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
});

}  // namespace
}  // namespace lb
