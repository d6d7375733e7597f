// The runtime and driver layers run the same kernel text with the same launch shapes, so on the
// same inputs their outputs agree: bit for bit for vector_add and saxpy (one operation per
// element), and within the workload's tolerance for reduce and matmul. Needs a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "variants/variant.h"
#include "workloads/problem.h"

namespace lb {
namespace {

std::vector<float> run_layer(const std::string& layer, const Workload& w, const HostProblem& p) {
  auto v = (*find_variant(layer, w.name()))();
  v->allocate(p.shape);
  v->upload(p);
  v->run();
  std::vector<float> out(p.output.size(), std::nanf(""));
  v->download(out);
  return out;
}

class SameKernelText : public ::testing::TestWithParam<std::string> {};

TEST_P(SameKernelText, DriverMatchesRuntime) {
  for (const char* layer : {"runtime", "driver"})
    if (const std::string why = find_layer(layer)->unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const Workload& w = *find_workload(GetParam());
  const std::vector<Shape> sizes = w.takes_matrix_sizes()
      ? std::vector<Shape>{{1, 1, 1}, {17, 33, 65}, {128, 1, 300}, {512, 512, 512}}
      : std::vector<Shape>{{1, 1, 1}, {1, 127, 1}, {1, 128, 1}, {1, 129, 1}, {1, 1000003, 1}};
  for (const Shape& s : sizes) {
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE(w.size_label(s) + " seed " + std::to_string(seed));
    const HostProblem p = w.make_problem(s, seed);
    const std::vector<float> runtime = run_layer("runtime", w, p);
    const std::vector<float> driver = run_layer("driver", w, p);
    const Verdict rv = w.verify(p, runtime), dv = w.verify(p, driver);
    EXPECT_TRUE(rv.passed) << "runtime: " << rv.detail;
    EXPECT_TRUE(dv.passed) << "driver: " << dv.detail;
    if (w.name() == "vector_add" || w.name() == "saxpy") {
      EXPECT_EQ(std::memcmp(runtime.data(), driver.data(), runtime.size() * sizeof(float)), 0)
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
