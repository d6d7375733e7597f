// What is specific to the vendor layer (cuBLAS, CUB). Its results on the shared edge sizes, its use
// of the harness's stream and the stream gate are checked with every other layer's in
// test_layers.cpp and test_stream_gate.cpp; here: its registration, its error path, the sizes the
// issue names (1000x999x1001 among them), that its matmul is plain fp32 (no TF32), and that run()
// is pure stream work (no allocation, no wait: it captures into a CUDA graph).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/gpu.h"
#include "tests/layer_rig.h"
#include "variants/vendor/vendor_layer.h"
#include "workloads/workload.h"

namespace lb {
namespace {

const Layer& vendor_layer() {
  const Layer* l = find_layer("vendor");
  if (!l) throw std::logic_error("the vendor layer is not registered");
  return *l;
}

// --- CPU ------------------------------------------------------------------------------------------

TEST(VendorLayer, RegisteredWithTheFiveWorkloads) {
  ASSERT_NE(find_layer("vendor"), nullptr);
  EXPECT_TRUE(vendor_layer().on_gpu);
  for (const char* w : {"vector_add", "saxpy", "reduce", "matmul", "transpose"})
    EXPECT_NE(find_variant("vendor", w), nullptr) << w;
}

// A library has no empty kernel to launch: the launch workloads are left out, each with a reason
// that `list` prints.
TEST(VendorLayer, LaunchWorkloadsAreNotProvidedWithAReason) {
  for (const char* w : {"launch_async", "launch_sync"}) {
    SCOPED_TRACE(w);
    ASSERT_NE(find_workload(w), nullptr) << "the workload exists, the vendor layer has no variant of it";
    EXPECT_EQ(find_variant("vendor", w), nullptr);
    const auto& reasons = vendor_layer().not_provided;
    ASSERT_TRUE(reasons.contains(w));
    EXPECT_FALSE(reasons.at(w).empty());
  }
  // Nothing it does provide is listed as not provided.
  for (const auto& [workload, why] : vendor_layer().not_provided) EXPECT_EQ(find_variant("vendor", workload), nullptr);
}

TEST(VendorLayer, AvailableExactlyWhenAGpuIs) {
  EXPECT_EQ(vendor_layer().unavailable_reason(), gpu_unavailable_reason());
}

// `list` and the results describe the layer on any machine: library versions, and what each
// workload calls, the math mode named.
TEST(VendorLayer, DescribesItsLibrariesWithoutAGpu) {
  const nlohmann::json j = vendor_layer().describe();
  EXPECT_FALSE(j.at("cublas_version").get<std::string>().empty()) << j.dump();
  EXPECT_FALSE(j.at("cccl_version").get<std::string>().empty()) << j.dump();
  EXPECT_NE(j.at("matmul").get<std::string>().find("CUBLAS_DEFAULT_MATH"), std::string::npos) << j.dump();
  EXPECT_NE(j.at("vector_add").get<std::string>().find("DeviceTransform"), std::string::npos) << j.dump();
  EXPECT_NE(j.at("transpose").get<std::string>().find("cublasSgeam"), std::string::npos) << j.dump();
}

TEST(VendorLayer, MatmulMathModeIsPlainFp32) {
  EXPECT_EQ(vendor::kMathMode, CUBLAS_DEFAULT_MATH);
  EXPECT_EQ(vendor::math_mode_name(CUBLAS_DEFAULT_MATH), "CUBLAS_DEFAULT_MATH");
  EXPECT_EQ(vendor::math_mode_name(CUBLAS_TF32_TENSOR_OP_MATH), "CUBLAS_TF32_TENSOR_OP_MATH");
  EXPECT_EQ(vendor::math_mode_name(static_cast<cublasMath_t>(CUBLAS_PEDANTIC_MATH |
                                                             CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
            "CUBLAS_PEDANTIC_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION");
}

// A failed cuBLAS call throws with the call's text, where it was, and cuBLAS's status name and
// text; an allocation failure is DeviceOutOfMemory (the harness skips such a case).
TEST(VendorLayer, CublasErrorsNameTheCallAndTheStatus) {
  auto fails_with = [](cublasStatus_t s) { return s; };
  try {
    LB_CUBLAS_CHECK(fails_with(CUBLAS_STATUS_INVALID_VALUE));
    FAIL() << "no exception";
  } catch (const DeviceOutOfMemory&) {
    FAIL() << "an invalid value is not out of memory";
  } catch (const CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("fails_with(CUBLAS_STATUS_INVALID_VALUE)"), std::string::npos) << what;
    EXPECT_NE(what.find("tests/test_vendor.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("(CUBLAS_STATUS_INVALID_VALUE)"), std::string::npos) << what;
    EXPECT_EQ(e.code(), static_cast<int>(CUBLAS_STATUS_INVALID_VALUE));
  }
  EXPECT_THROW(LB_CUBLAS_CHECK(fails_with(CUBLAS_STATUS_ALLOC_FAILED)), DeviceOutOfMemory);
  EXPECT_NO_THROW(LB_CUBLAS_CHECK(fails_with(CUBLAS_STATUS_SUCCESS)));
}

// --- GPU (skipped without one) --------------------------------------------------------------------

class VendorGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = vendor_layer().unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
    rig_.emplace(vendor_layer());
  }
  // The harness's verified run on a fresh problem, twice on the same buffers (as the timed samples
  // reuse them); the seed is printed on failure.
  void expect_matches_reference(const char* workload_name, const Shape& shape) {
    const Workload& w = *find_workload(workload_name);
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE(std::string(workload_name) + " " + w.size_label(shape) + " seed " + std::to_string(seed));
    const HostProblem p = w.make_problem(shape, seed);
    auto v = rig_->make(w, shape);
    for (int pass = 0; pass < 2; ++pass) {
      const Verdict verdict = rig_->check(*v, w, p);
      EXPECT_TRUE(verdict.passed) << "pass " << pass << ": " << verdict.detail;
    }
  }
  std::optional<LayerRig> rig_;
};

TEST_F(VendorGpu, MatmulMatchesReferenceOnEdgeSizes) {
  for (const Shape& s : {Shape{1, 1, 1}, Shape{17, 33, 65}, Shape{128, 1, 300}, Shape{1000, 999, 1001}})
    expect_matches_reference("matmul", s);
}

// cublasSgeam's operand reasoning (row-major through a column-major library) on shapes where rows
// and columns differ, so that a swapped dimension or leading dimension cannot pass.
TEST_F(VendorGpu, TransposeMatchesReferenceOnOddShapes) {
  for (const Shape& s : {Shape{1, 1, 1}, Shape{1, 4097, 1}, Shape{4097, 1, 1}, Shape{33, 65, 1}, Shape{1000, 999, 1}})
    expect_matches_reference("transpose", s);
}

TEST_F(VendorGpu, VectorWorkloadsMatchReferenceOnEdgeSizes) {
  for (const char* w : {"vector_add", "saxpy", "reduce"})
    for (std::int64_t n : {1LL, 127LL, 128LL, 129LL, 1000003LL}) expect_matches_reference(w, {1, n, 1});
}

// The session's handle: created once (its cost reported), in CUBLAS_DEFAULT_MATH, which the handle
// itself reports, and host pointer mode.
TEST_F(VendorGpu, SessionHandleIsInPlainFp32Mode) {
  CostLog costs;
  vendor::Session session(costs);
  EXPECT_EQ(session.math_mode(), CUBLAS_DEFAULT_MATH);
  ASSERT_EQ(costs.entries().size(), 1u);
  EXPECT_NE(costs.entries()[0].what.find("cublasCreate"), std::string::npos);
  EXPECT_GT(costs.entries()[0].ms, 0.0);
  const nlohmann::json j = session.describe();
  EXPECT_EQ(j.at("cublas_math_mode"), "CUBLAS_DEFAULT_MATH") << j.dump();
  EXPECT_EQ(j.at("cublas_pointer_mode"), "host") << j.dump();
}

// That the check would catch TF32: the same product through a cuBLAS handle that allows TF32
// tensor cores fails the fp32 tolerance (2 sqrt(k) eps relative to sum |a||b|: TF32 keeps 10
// mantissa bits, an error near 2^-11 / sqrt(k) relative, ~15x over at k = 1024), while the vendor
// layer's matmul passes it. When cuBLAS picks an fp32 kernel even with TF32 allowed, the control
// proves nothing on this GPU and the test says so.
TEST_F(VendorGpu, MatmulIsFp32WhereTf32WouldFailTheCheck) {
  const Shape s{1024, 1024, 1024};
  const Workload& w = *find_workload("matmul");
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostProblem p = w.make_problem(s, seed);

  auto v = rig_->make(w, s);
  const Verdict fp32 = rig_->check(*v, w, p);
  EXPECT_TRUE(fp32.passed) << fp32.detail;

  const cudaStream_t stream = rig_->stream();
  DeviceBuffer<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
  a.upload(p.inputs[0], stream);
  b.upload(p.inputs[1], stream);
  cublasHandle_t handle = nullptr;
  LB_CUBLAS_CHECK(cublasCreate(&handle));
  HostBuffer tf32_result(static_cast<std::size_t>(s.m * s.n));
  try {
    LB_CUBLAS_CHECK(cublasSetStream(handle, stream));
    LB_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
    const float one = 1.0f, zero = 0.0f;
    const int n = int(s.n), m = int(s.m), k = int(s.k);
    LB_CUBLAS_CHECK(
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b.get(), n, a.get(), k, &zero, c.get(), n));
    c.download(tf32_result, stream);
  } catch (...) {
    cublasDestroy(handle);
    throw;
  }
  cublasDestroy(handle);
  const Verdict tf32 = w.verify(p, tf32_result);
  if (tf32.passed)
    GTEST_SKIP() << "cuBLAS used an fp32 kernel even with TF32 allowed (max error " << tf32.max_rel_error
                 << " of tolerance " << tf32.tolerance << "): the control shows nothing here";
  EXPECT_GT(tf32.max_rel_error, 4 * fp32.max_rel_error) << "TF32 error " << tf32.max_rel_error << ", fp32 error "
                                                         << fp32.max_rel_error;
}

// run() is stream work only: no allocation (CUB's temporary storage was made in allocate()), no
// wait, nothing on another stream. Stream capture in thread-local mode refuses cudaMalloc and
// synchronisation while capturing, and captures nothing that goes elsewhere; the replayed graph must
// give the verified result.
TEST_F(VendorGpu, RunCapturesIntoAGraph) {
  for (const char* name : {"vector_add", "saxpy", "reduce", "matmul", "transpose"}) {
    SCOPED_TRACE(name);
    const Workload& w = *find_workload(name);
    const Shape shape = w.size_form() == SizeForm::kProduct  ? Shape{129, 65, 257}
                        : w.size_form() == SizeForm::kMatrix ? Shape{1000, 999, 1}
                                                             : Shape{1, 1000003, 1};
    const HostProblem p = w.make_problem(shape, 5);
    auto v = rig_->make(w, shape);
    ASSERT_TRUE(rig_->check(*v, w, p).passed);  // the warm-up: lazy module loading happens here
    const cudaStream_t stream = rig_->stream();
    v->upload(p, stream);  // poisoned again
    cudaGraph_t graph = nullptr;
    LB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      v->run(stream);
    } catch (const std::exception& e) {
      cudaStreamEndCapture(stream, &graph);
      if (graph) cudaGraphDestroy(graph);
      FAIL() << "run() did something stream capture refuses: " << e.what();
    }
    LB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;
    LB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    LB_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    LB_CUDA_CHECK(cudaStreamSynchronize(stream));
    LB_CUDA_CHECK(cudaGraphExecDestroy(exec));
    LB_CUDA_CHECK(cudaGraphDestroy(graph));
    HostBuffer result(p.output.size());
    v->download(result, stream);
    const Verdict verdict = w.verify(p, result);
    EXPECT_TRUE(verdict.passed) << verdict.detail;
  }
}

}  // namespace
}  // namespace lb
