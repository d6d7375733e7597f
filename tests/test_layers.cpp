// Every registered (layer, workload) pair against the double-precision reference, on the edge
// sizes kept apart from benchmark sizes, with a fresh seed each run (printed on failure), through
// the harness's own verified run. Layers that cannot run here (GPU layers without a device) are
// skipped, not passed.
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "common/cuda_check.h"
#include "tests/layer_rig.h"
#include "tests/variant_pairs.h"
#include "workloads/problem.h"

namespace lb {
namespace {

class LayerTest : public ::testing::TestWithParam<Pair> {
 protected:
  void SetUp() override {
    layer_ = find_layer(GetParam().layer);
    workload_ = find_workload(GetParam().workload);
    if (const std::string why = layer_->unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
    rig_.emplace(*layer_);
  }
  std::unique_ptr<Variant> make(const Shape& shape) { return rig_->make(*workload_, shape); }
  Verdict check(Variant& v, const HostProblem& p) { return rig_->check(v, *workload_, p); }
  const Layer* layer_ = nullptr;
  const Workload* workload_ = nullptr;
  std::optional<LayerRig> rig_;
};

TEST_P(LayerTest, MatchesReferenceOnEdgeSizes) {
  for (const Shape& shape : workload_->edge_sizes()) {
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE(workload_->size_label(shape) + " seed " + std::to_string(seed));
    const HostProblem p = workload_->make_problem(shape, seed);
    auto v = make(shape);
    const Verdict verdict = check(*v, p);
    EXPECT_TRUE(verdict.passed) << verdict.detail;
    // Running again on the same buffers (what the timed samples do) gives a verified result too.
    const Verdict again = check(*v, p);
    EXPECT_TRUE(again.passed) << again.detail;
  }
}

// reduce: a large value at the first, middle or last position must reach the sum, so a kernel
// that drops its tail (or its head) fails even where the tolerance of a long sum is wide.
class ReduceTest : public LayerTest {};
TEST_P(ReduceTest, CountsEveryElement) {
  for (std::int64_t n : {129LL, 1000003LL}) {
    for (std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
      SCOPED_TRACE("n " + std::to_string(n) + " needle at " + std::to_string(at));
      HostProblem p = workload_->make_problem({1, n, 1}, std::random_device{}());
      p.inputs[0][at] = 1e4f;
      auto v = make(p.shape);
      const Verdict verdict = check(*v, p);
      EXPECT_TRUE(verdict.passed) << verdict.detail;
    }
  }
}

// A device allocation that cannot fit raises DeviceOutOfMemory, which the harness turns into a
// skipped case; CPU layers allocate lazily and are not asked.
class GpuAllocationTest : public LayerTest {};
TEST_P(GpuAllocationTest, ImpossibleAllocationIsOutOfMemory) {
  EXPECT_THROW(make({1, std::int64_t{1} << 42, 1}), DeviceOutOfMemory);  // 16 TiB each
  // The layer still works afterwards.
  const HostProblem p = workload_->make_problem({1, 1000, 1}, 7);
  auto fresh = make(p.shape);
  EXPECT_TRUE(check(*fresh, p).passed);
}

INSTANTIATE_TEST_SUITE_P(AllRegistered, LayerTest, ::testing::ValuesIn(pairs()), pair_name);
INSTANTIATE_TEST_SUITE_P(AllRegistered, ReduceTest, ::testing::ValuesIn(pairs("reduce")), pair_name);
INSTANTIATE_TEST_SUITE_P(GpuLayers, GpuAllocationTest, ::testing::ValuesIn(pairs("vector_add", true)), pair_name);

}  // namespace
}  // namespace lb
