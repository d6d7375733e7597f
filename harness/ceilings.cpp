#include "harness/ceilings.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/cuda_error.h"
#include "workloads/problem.h"

namespace lb {
namespace {

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(status));
}
#define LB_CUBLAS_CHECK(call) check((call), #call)

}  // namespace

nlohmann::json measure_sgemm_ceiling() {
  constexpr int n = 4096;
  const std::size_t count = std::size_t{n} * n;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cublasHandle_t handle = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  auto release = [&] {
    if (handle) cublasDestroy(handle);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  };
  std::vector<float> ms;
  try {
    LB_CUDA_CHECK(cudaMalloc(&a, count * sizeof(float)));
    LB_CUDA_CHECK(cudaMalloc(&b, count * sizeof(float)));
    LB_CUDA_CHECK(cudaMalloc(&c, count * sizeof(float)));
    const std::vector<float> host_a = random_vector(count, 1, 0), host_b = random_vector(count, 1, 1);
    LB_CUDA_CHECK(cudaMemcpy(a, host_a.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    LB_CUDA_CHECK(cudaMemcpy(b, host_b.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    LB_CUBLAS_CHECK(cublasCreate(&handle));
    LB_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    LB_CUDA_CHECK(cudaEventCreate(&start));
    LB_CUDA_CHECK(cudaEventCreate(&stop));
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A*B is column-major C^T = B^T A^T: the same call with the operands swapped.
    auto sgemm = [&] { LB_CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n)); };
    for (int i = 0; i < 3; ++i) sgemm();
    for (int i = 0; i < 10; ++i) {
      LB_CUDA_CHECK(cudaEventRecord(start, 0));
      sgemm();
      LB_CUDA_CHECK(cudaEventRecord(stop, 0));
      LB_CUDA_CHECK(cudaEventSynchronize(stop));
      float t = 0;
      LB_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
      ms.push_back(t);
    }
  } catch (...) {
    release();
    throw;
  }
  release();
  std::sort(ms.begin(), ms.end());
  const double median_ms = 0.5 * (ms[4] + ms[5]);
  int version = 0;
  cublasGetVersion(nullptr, &version);
  return {{"sgemm_gflops", 2.0 * n * double(n) * n / (median_ms * 1e-3) / 1e9},
          {"sgemm_size", std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n)},
          {"sgemm_median_ms", median_ms},
          {"sgemm_method", "cublasSgemm, CUBLAS_DEFAULT_MATH (fp32, no TF32), median of 10, cuBLAS " +
                               std::to_string(version)}};
}

nlohmann::json theoretical_fp32_gflops(const nlohmann::json& device) {
  const std::string cc = device.value("compute_capability", "");
  int lanes = 0;  // fp32 lanes per SM by architecture
  if (cc == "7.0" || cc == "7.5" || cc == "8.0") lanes = 64;
  else if (cc == "8.6" || cc == "8.7" || cc == "8.9" || cc.rfind("9.", 0) == 0 || cc.rfind("10.", 0) == 0 ||
           cc.rfind("12.", 0) == 0)
    lanes = 128;
  if (lanes == 0) return nullptr;
  return device["sm_count"].get<double>() * lanes * 2.0 * device["sm_clock_mhz"].get<double>() / 1e3;
}

}  // namespace lb
