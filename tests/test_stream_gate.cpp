// The harness's stream on the GPU. The stream gate (nvbench's blocking kernel) holds a stream
// until released and gives up on its own when never released; every GPU variant that says its
// run() does not wait can be run behind it (one that waited would time the gate out, not hang the
// suite); and every GPU variant does its device work on the stream it is handed: with the legacy
// default stream held, its verified run still completes.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <random>
#include <thread>

#include "common/cuda_check.h"
#include "common/gpu.h"
#include "common/stream.h"
#include "harness/clocks.h"
#include "harness/stream_gate.h"
#include "tests/layer_rig.h"
#include "tests/variant_pairs.h"
#include "workloads/problem.h"

namespace lb {
namespace {

class StreamGateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
    stream_.emplace();
  }
  std::optional<Stream> stream_;
};

TEST_F(StreamGateTest, HoldsTheStreamUntilReleased) {
  StreamGate gate(5.0);
  Event behind;
  gate.hold(stream_->get());
  behind.record(stream_->get());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(cudaEventQuery(behind.get()), cudaErrorNotReady);  // still waiting behind the gate
  gate.release();
  LB_CUDA_CHECK(cudaEventSynchronize(behind.get()));
  EXPECT_FALSE(gate.timed_out());
}

TEST_F(StreamGateTest, GivesUpWhenNeverReleased) {
  StreamGate gate(0.05);
  gate.hold(stream_->get());
  const auto t0 = std::chrono::steady_clock::now();
  stream_->synchronize();  // what a run() that waits would do: no hang
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(40));
  EXPECT_TRUE(gate.timed_out());
  EXPECT_FALSE(gate.timed_out());  // reading the flag resets it
}

// The harness's stream is non-blocking: work on it does not wait for the legacy default stream.
// (If it did, the test below could not tell a variant that strays onto stream 0.)
TEST_F(StreamGateTest, TheHarnessStreamDoesNotWaitForTheLegacyStream) {
  StreamGate gate(2.0);
  Event done;
  gate.hold(cudaStreamLegacy);
  done.record(stream_->get());
  LB_CUDA_CHECK(cudaEventSynchronize(done.get()));
  gate.release();
  LB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_FALSE(gate.timed_out());
}

// A GPU layer timed by the host clock (Layer::timing, run --host-clock): the sample spans what run()
// left on the harness's stream, here the gate's kernel, which spins until it gives up (50 ms);
// the plain host clock of a CPU layer stops at once.
TEST_F(StreamGateTest, AHostTimedSampleSpansTheWorkLeftOnItsStream) {
  const auto host_timed = make_sample_clock(/*on_gpu=*/true, stream_->get(), /*host_clock=*/true);
  StreamGate gate(0.05);
  host_timed->start();
  gate.hold(stream_->get());
  const double spanned_ms = host_timed->stop_ms();
  EXPECT_GE(spanned_ms, 40.0) << "the host-timed sample stopped before the stream's work was done";
  EXPECT_TRUE(gate.timed_out());
  const auto cpu = make_sample_clock(/*on_gpu=*/false, nullptr);
  StreamGate again(0.05);
  cpu->start();
  again.hold(stream_->get());
  EXPECT_LT(cpu->stop_ms(), 40.0);
  stream_->synchronize();
  EXPECT_TRUE(again.timed_out());
}

class GpuVariantTest : public ::testing::TestWithParam<Pair> {
 protected:
  void SetUp() override {
    const Layer& layer = *find_layer(GetParam().layer);
    if (const std::string why = layer.unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
    workload_ = find_workload(GetParam().workload);
    rig_.emplace(layer);
    shape_ = workload_->edge_sizes().back();
    variant_ = rig_->make(*workload_, shape_);
    seed_ = std::random_device{}();
    problem_ = workload_->make_problem(shape_, seed_);
    // The harness's warm-up: a first run() may load its module lazily or allocate a pool, which
    // wait for the device, so nothing is held until one run() has completed.
    variant_->upload(problem_, rig_->stream());
    variant_->run(rig_->stream());
    LB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  const Workload* workload_ = nullptr;
  Shape shape_;
  std::uint64_t seed_ = 0;
  std::optional<LayerRig> rig_;
  std::unique_ptr<Variant> variant_;
  HostProblem problem_;
};

// The three stream disciplines of one variant, in one test: the variant is made and warmed up
// once (a Python layer's interpreter, imports and JIT cost seconds of CPU a process; three tests a
// variant paid them three times, 258 processes on a GPU host), and each part fails on its own, its
// name in the message.
class StreamDisciplineTest : public GpuVariantTest {
 protected:
  // A variant that said it does not wait but did would leave the gate to time out, and the harness
  // would fail the case; here it fails the test instead, and a result computed behind the gate
  // must still verify.
  void run_completes_behind_the_gate() {
    const cudaStream_t stream = rig_->stream();
    variant_->upload(problem_, stream);  // poisoned again
    StreamGate gate(2.0);
    gate.hold(stream);
    variant_->run(stream);
    gate.release();
    LB_CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_FALSE(gate.timed_out()) << "run() said it does not wait, but the gate timed out";
    HostBuffer result(problem_.output.size());
    variant_->download(result, stream);
    const Verdict verdict = workload_->verify(problem_, result);
    EXPECT_TRUE(verdict.passed) << "behind the gate: " << verdict.detail;
  }
  // Upload, run and download all go to the stream the variant is handed: with the legacy default
  // stream held behind the gate, a copy or launch that went there instead would wait until the
  // gate gave up, and the test sees the gate time out.
  void verified_run_never_touches_the_legacy_stream() {
    StreamGate gate(2.0);
    gate.hold(cudaStreamLegacy);
    const Verdict verdict = rig_->check(*variant_, *workload_, problem_);
    gate.release();
    LB_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_FALSE(gate.timed_out()) << "upload, run or download used the legacy default stream";
    EXPECT_TRUE(verdict.passed) << "legacy stream held: " << verdict.detail;
  }
  // allocate() too: with the legacy default stream held, making a variant (its buffers, a Thrust
  // vector's fill, a graph capture, a module from the layer's session) still completes. The variant
  // was made once before (SetUp), so that lazy module loading, which waits for the whole device, is done.
  void allocate_never_touches_the_legacy_stream() {
    StreamGate gate(2.0);
    gate.hold(cudaStreamLegacy);
    auto again = rig_->make(*workload_, shape_);
    gate.release();
    LB_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_FALSE(gate.timed_out()) << "allocate() used the legacy default stream";
  }
};
TEST_P(StreamDisciplineTest, HeldRunOwnStreamAndOwnStreamAllocate) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  if (variant_->run_waits()) {
    // Not a skip of the test: its other two parts run. Said in the output, as the skip said it.
    std::cout << "[   NOTE   ] held run not tried: run() waits for the device (the gate would time out)\n";
  } else {
    SCOPED_TRACE("held run");
    run_completes_behind_the_gate();
  }
  {
    SCOPED_TRACE("own stream");
    verified_run_never_touches_the_legacy_stream();
  }
  {
    SCOPED_TRACE("own stream, allocate");
    allocate_never_touches_the_legacy_stream();
  }
}

INSTANTIATE_TEST_SUITE_P(GpuVariants, StreamDisciplineTest, ::testing::ValuesIn(pairs("", /*gpu_only=*/true)), pair_name);

}  // namespace
}  // namespace lb
