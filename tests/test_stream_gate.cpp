// The stream gate (nvbench's blocking kernel) on the GPU: it holds the stream until released, it
// gives up on its own when never released, and every GPU variant that says its run() does not
// wait can be run behind it (one that waited would time the gate out, not hang the suite).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>

#include "harness/cuda_error.h"
#include "harness/device_info.h"
#include "harness/gpu_monitor.h"
#include "tests/variant_pairs.h"
#include "variants/variant.h"
#include "workloads/problem.h"

namespace lb {
namespace {

class StreamGateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(StreamGateTest, HoldsTheStreamUntilReleased) {
  StreamGate gate(5.0);
  cudaEvent_t behind = nullptr;
  LB_CUDA_CHECK(cudaEventCreate(&behind));
  gate.hold();
  LB_CUDA_CHECK(cudaEventRecord(behind, 0));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(cudaEventQuery(behind), cudaErrorNotReady);  // still waiting behind the gate
  gate.release();
  LB_CUDA_CHECK(cudaEventSynchronize(behind));
  EXPECT_FALSE(gate.timed_out());
  LB_CUDA_CHECK(cudaEventDestroy(behind));
}

TEST_F(StreamGateTest, GivesUpWhenNeverReleased) {
  StreamGate gate(0.05);
  gate.hold();
  const auto t0 = std::chrono::steady_clock::now();
  LB_CUDA_CHECK(cudaStreamSynchronize(0));  // what a run() that waits would do: no hang
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(40));
  EXPECT_TRUE(gate.timed_out());
  EXPECT_FALSE(gate.timed_out());  // reading the flag resets it
}

class HeldRunTest : public ::testing::TestWithParam<Pair> {};

// A variant that said it does not wait but did would leave the gate to time out, and the harness
// would fail the case; here it fails the test instead, and a result computed behind the gate
// must still verify.
TEST_P(HeldRunTest, RunThatDoesNotWaitCompletesBehindTheGate) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const Workload* w = find_workload(GetParam().workload);
  const Shape shape = w->edge_sizes().back();
  auto v = (*find_variant(GetParam().layer, GetParam().workload))();
  v->allocate(shape);
  if (v->run_waits()) GTEST_SKIP() << "run() waits for the device: never held (the gate would time out)";
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostProblem p = w->make_problem(shape, seed);
  v->upload(p);
  // The harness's warm-up: a first run() may load its module lazily, which waits for the device,
  // so nothing is held until one run() has completed.
  v->run();
  LB_CUDA_CHECK(cudaDeviceSynchronize());
  v->upload(p);  // poisoned again
  StreamGate gate(2.0);
  gate.hold();
  v->run();
  gate.release();
  LB_CUDA_CHECK(cudaStreamSynchronize(0));
  EXPECT_FALSE(gate.timed_out());
  std::vector<float> result(p.output.size(), std::nanf(""));
  v->download(result);
  const Verdict verdict = w->verify(p, result);
  EXPECT_TRUE(verdict.passed) << verdict.detail;
}

INSTANTIATE_TEST_SUITE_P(GpuVariants, HeldRunTest, ::testing::ValuesIn(pairs("", /*gpu_only=*/true)), pair_name);

}  // namespace
}  // namespace lb
