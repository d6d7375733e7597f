// The vendor layer: NVIDIA's own libraries doing each workload, as a user who does not write
// kernels would: cuBLAS for matmul (cublasSgemm), saxpy (cublasSaxpy) and transpose (cublasSgeam),
// CUB for reduce (cub::DeviceReduce::Sum) and vector_add (cub::DeviceTransform::Transform). Every
// call gets the harness's stream (cublasSetStream, CUB's stream argument) and returns without
// waiting. The cuBLAS handle is made once per run, in the layer's session (its cost is a one-time cost);
// CUB's temporary storage is sized and allocated in allocate(), outside the timed run.
// docs/layers/vendor.md explains each choice.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/gpu.h"
#include "variants/variant.h"

namespace lb::vendor {

// A failed cuBLAS call: CudaError with the call's text, where it was made, and cuBLAS's name and
// description of the status (cublasGetStatusName/String). CUBLAS_STATUS_ALLOC_FAILED becomes
// DeviceOutOfMemory, which the harness turns into a skipped case, like a failed cudaMalloc.
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);

// "CUBLAS_DEFAULT_MATH", "CUBLAS_TF32_TENSOR_OP_MATH", ... (flags such as
// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION appended with " | ").
std::string math_mode_name(cublasMath_t mode);

// The math mode the layer runs cuBLAS in: plain fp32 (see vendor_layer.cpp for why not PEDANTIC).
inline constexpr cublasMath_t kMathMode = CUBLAS_DEFAULT_MATH;

// What the layer keeps for one run: one cuBLAS handle, created (cublasCreate: it loads cuBLAS's
// context and allocates its default workspace) when the session opens, in fp32 math mode with
// host pointer mode, and destroyed when the run ends.
class Session final : public LayerSession {
 public:
  explicit Session(CostLog& costs);
  ~Session() override;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The handle, bound to `stream`: cublasSetStream when the stream differs from the one bound last
  // (a host-side setting, no device work), so every call after it is enqueued on `stream`.
  cublasHandle_t on(cudaStream_t stream);
  // The math mode the handle reports now (cublasGetMathMode).
  cublasMath_t math_mode() const;
  nlohmann::json describe() const override;

 private:
  cublasHandle_t handle_ = nullptr;
  cudaStream_t bound_ = nullptr;
  bool bound_once_ = false;
  double create_ms_ = 0;
};

}  // namespace lb::vendor

#define LB_CUBLAS_CHECK(call)                                                   \
  do {                                                                          \
    const cublasStatus_t lb_cublas_status_ = (call);                            \
    if (lb_cublas_status_ != CUBLAS_STATUS_SUCCESS)                             \
      ::lb::vendor::throw_cublas_error(lb_cublas_status_, #call, __FILE__, __LINE__); \
  } while (0)
