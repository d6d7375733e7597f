// Registers the vendor layer and keeps its session: the cuBLAS handle.
//
// Math mode. cublasSgemm in CUBLAS_DEFAULT_MATH computes in fp32 (CUBLAS_COMPUTE_32F): fp32
// inputs, fp32 fused multiply-adds, no TF32 tensor cores (those need CUBLAS_TF32_TENSOR_OP_MATH or
// a *_FAST_TF32 compute type; since cuBLAS 11 the default no longer allows them) and no BF16x9
// emulation (CUBLAS_FP32_EMULATED_BF16X9_MATH). That is the arithmetic of our own fp32 kernels,
// so the comparison is like for like; TF32 would be another workload. We set it explicitly anyway,
// and read it back into the results. CUBLAS_PEDANTIC_MATH (CUBLAS_COMPUTE_32F_PEDANTIC) would also
// pin every internal phase to "the prescribed precision and standardized arithmetic", which NVIDIA
// describes as meant for numerical studies and possibly slower: it would make cuBLAS look slower
// than what a user calling cublasSgemm gets, so we do not use it. The harness's cuBLAS ceiling
// (harness/ceilings.cpp) uses the same mode, so this layer's matmul and the ceiling line agree.
// Environment variables that change what the default mode does (NVIDIA_TF32_OVERRIDE, cuBLAS's
// emulation switches) are recorded in the session's description when set.
#include <cuda/std/version>

#include <chrono>
#include <cstdlib>

#include "common/elapsed.h"
#include "variants/vendor/vendor_layer.h"
#include <nlohmann/json.hpp>

namespace lb::vendor {

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  const std::string message = std::string(call) + " failed at " + source_path(file) + ":" + std::to_string(line) +
                              ": " + cublasGetStatusString(status) + " (" + cublasGetStatusName(status) + ")";
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw DeviceOutOfMemory(message, static_cast<int>(status));
  throw CudaError(message, static_cast<int>(status));
}

std::string math_mode_name(cublasMath_t mode) {
  const int base = static_cast<int>(mode) & 0xf;
  std::string name;
  switch (base) {
    case CUBLAS_DEFAULT_MATH: name = "CUBLAS_DEFAULT_MATH"; break;
    case CUBLAS_TENSOR_OP_MATH: name = "CUBLAS_TENSOR_OP_MATH"; break;
    case CUBLAS_PEDANTIC_MATH: name = "CUBLAS_PEDANTIC_MATH"; break;
    case CUBLAS_TF32_TENSOR_OP_MATH: name = "CUBLAS_TF32_TENSOR_OP_MATH"; break;
    case CUBLAS_FP32_EMULATED_BF16X9_MATH: name = "CUBLAS_FP32_EMULATED_BF16X9_MATH"; break;
    case CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH: name = "CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH"; break;
    default: name = "math mode " + std::to_string(base);
  }
  if (static_cast<int>(mode) & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)
    name += " | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION";
  return name;
}

Session::Session(CostLog& costs) {
  const auto t0 = std::chrono::steady_clock::now();
  LB_CUBLAS_CHECK(cublasCreate(&handle_));
  create_ms_ = ms_since(t0);
  costs.add("cublasCreate (cuBLAS handle and its default workspace)", create_ms_);
  try {
    LB_CUBLAS_CHECK(cublasSetMathMode(handle_, kMathMode));
    // alpha and beta are host floats, read when the call is made (not when the kernel runs).
    LB_CUBLAS_CHECK(cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_HOST));
  } catch (...) {
    cublasDestroy(handle_);
    throw;
  }
}

Session::~Session() {
  if (handle_) cublasDestroy(handle_);  // waits for the device (cuBLAS's own rule); after the run
}

cublasHandle_t Session::on(cudaStream_t stream) {
  if (!bound_once_ || stream != bound_) {
    LB_CUBLAS_CHECK(cublasSetStream(handle_, stream));
    bound_ = stream;
    bound_once_ = true;
  }
  return handle_;
}

cublasMath_t Session::math_mode() const {
  cublasMath_t mode = CUBLAS_DEFAULT_MATH;
  LB_CUBLAS_CHECK(cublasGetMathMode(handle_, &mode));
  return mode;
}

nlohmann::json Session::describe() const {
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  LB_CUBLAS_CHECK(cublasGetPointerMode(handle_, &pointer_mode));
  nlohmann::json j{{"cublas_math_mode", math_mode_name(math_mode())},
                   {"cublas_pointer_mode", pointer_mode == CUBLAS_POINTER_MODE_HOST ? "host" : "device"},
                   {"cublas_create_ms", create_ms_}};
  nlohmann::json env = nlohmann::json::object();
  for (const char* name : {"NVIDIA_TF32_OVERRIDE", "CUBLAS_EMULATE_SINGLE_PRECISION", "CUBLAS_EMULATION_STRATEGY",
                           "CUBLAS_WORKSPACE_CONFIG"})
    if (const char* value = std::getenv(name)) env[name] = value;
  if (!env.empty()) j["environment"] = env;
  return j;
}

namespace {

std::string dotted(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

nlohmann::json describe() {
  int major = 0, minor = 0, patch = 0;  // the libcublas loaded, which may differ from the headers
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return {
      {"cublas_version", dotted(major, minor, patch)},
      {"cublas_headers", dotted(CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH)},
      {"cccl_version", dotted(CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION, CCCL_PATCH_VERSION)},
      {"matmul", "cublasSgemm, " + math_mode_name(kMathMode) + " (fp32 FMA, no TF32), row-major by operand swap"},
      {"saxpy", "cublasSaxpy_64 (alpha by host pointer)"},
      {"reduce", "cub::DeviceReduce::Sum into device memory, temporary storage allocated in allocate()"},
      {"vector_add", "cub::DeviceTransform::Transform with cuda::std::plus<float>"},
      {"transpose", "cublasSgeam_64, op(A) transposed, alpha 1, beta 0, row-major by the column-major reading"},
      {"compiler", "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__)},
  };
}

// A library has no call that launches an empty kernel: what it would time is its own dispatch
// (argument checks, heuristics, a real kernel), not the cost of a launch.
constexpr const char* kNoLaunch =
    "cuBLAS and CUB have no call that launches an empty kernel; their per-call overhead shows in the small "
    "sizes of the other workloads, and launch cost itself is the runtime, driver and graph layers' to measure";

}  // namespace

LB_REGISTER_LAYER(Layer{
    .name = "vendor",
    .summary = "NVIDIA's libraries: cublasSgemm (fp32, no TF32), cublasSaxpy, cublasSgeam, cub::DeviceReduce::Sum, "
               "cub::DeviceTransform",
    .on_gpu = true,
    .rank = 35,
    .unavailable_reason = gpu_unavailable_reason,
    .describe = describe,
    .open_session = [](const LayerConfig&, CostLog& costs) -> std::unique_ptr<LayerSession> {
      return std::make_unique<Session>(costs);
    },
    .not_provided = {{"launch_async", kNoLaunch}, {"launch_sync", kNoLaunch}},
    .ladder_top_line = true,
});

}  // namespace lb::vendor
