// The runtime and driver layers run the same kernel text with the same launch shapes, so on the
// same inputs their outputs agree: bit for bit for vector_add and saxpy (one operation per
// element), and within the workload's tolerance for reduce and matmul. Needs a GPU.
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

class SameKernelText : public ::testing::TestWithParam<std::string> {};

TEST_P(SameKernelText, DriverMatchesRuntime) {
  for (const char* layer : {"runtime", "driver"})
    if (const std::string why = find_layer(layer)->unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const Workload& w = *find_workload(GetParam());
  for (const Shape& s : w.edge_sizes()) {
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE(w.size_label(s) + " seed " + std::to_string(seed));
    const HostProblem p = w.make_problem(s, seed);
    const LayerOutput runtime = run_layer("runtime", w, p), driver = run_layer("driver", w, p);
    const Verdict &rv = runtime.verdict, &dv = driver.verdict;
    EXPECT_TRUE(rv.passed) << "runtime: " << rv.detail;
    EXPECT_TRUE(dv.passed) << "driver: " << dv.detail;
    if (w.name() == "vector_add" || w.name() == "saxpy") {
      ASSERT_EQ(runtime.result.size(), driver.result.size());
      EXPECT_EQ(std::memcmp(runtime.result.data(), driver.result.data(), runtime.result.size() * sizeof(float)), 0)
          << "outputs differ in some bit";
    } else {
      // Both within tolerance of the reference puts them within twice the tolerance of each other;
      // the closer bound is checked directly against the reference's scale by verify() above.
      EXPECT_LE(std::fabs(rv.max_rel_error - dv.max_rel_error), rv.tolerance);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, SameKernelText, ::testing::Values("vector_add", "saxpy", "reduce", "matmul"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace lb
