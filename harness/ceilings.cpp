#include "harness/ceilings.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "harness/clocks.h"
#include "workloads/problem.h"

namespace lb {
namespace {

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(status));
}
#define LB_CUBLAS_CHECK(call) check((call), #call)

struct CublasHandle {
  cublasHandle_t handle = nullptr;
  CublasHandle() { LB_CUBLAS_CHECK(cublasCreate(&handle)); }
  ~CublasHandle() { cublasDestroy(handle); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
};

}  // namespace

CopyCeiling measure_copy_ceiling(cudaStream_t stream) {
  std::size_t free_bytes = 0, total_bytes = 0;
  LB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4);
  const DeviceBuffer<char> src(bytes), dst(bytes);
  LB_CUDA_CHECK(cudaMemsetAsync(src.get(), 0x3f, bytes, stream));  // real bit patterns, not untouched pages
  const double median_ms = median_ms_on_stream(
      [&] { LB_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream)); },
      stream, 3, 20);
  return {.gbps = 2.0 * bytes / (median_ms * 1e-3) / 1e9,
          .bytes = static_cast<double>(bytes),
          .median_ms = median_ms,
          .method = "cudaMemcpyAsync device-to-device, median of 20, bytes read + written"};
}

SgemmCeiling measure_sgemm_ceiling(cudaStream_t stream) {
  constexpr int n = 4096;
  const std::size_t count = std::size_t{n} * n;
  DeviceBuffer<float> a(count), b(count), c(count);
  a.upload(random_vector(count, 1, 0), stream);
  b.upload(random_vector(count, 1, 1), stream);
  const CublasHandle cublas;
  LB_CUBLAS_CHECK(cublasSetStream(cublas.handle, stream));
  LB_CUBLAS_CHECK(cublasSetMathMode(cublas.handle, CUBLAS_DEFAULT_MATH));
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A*B is column-major C^T = B^T A^T: the same call with the operands swapped.
  const double median_ms = median_ms_on_stream(
      [&] {
        LB_CUBLAS_CHECK(cublasSgemm(cublas.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.get(), n, a.get(), n,
                                    &zero, c.get(), n));
      },
      stream, 3, 10);
  int version = 0;
  cublasGetVersion(cublas.handle, &version);
  return {.gflops = 2.0 * n * double(n) * n / (median_ms * 1e-3) / 1e9,
          .size = std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n),
          .median_ms = median_ms,
          .method = "cublasSgemm, CUBLAS_DEFAULT_MATH (fp32, no TF32), median of 10, cuBLAS " + std::to_string(version)};
}

}  // namespace lb
