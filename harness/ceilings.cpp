#include "harness/ceilings.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
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

struct DeviceAlloc {
  void* ptr = nullptr;
  explicit DeviceAlloc(std::size_t bytes) { LB_CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
  ~DeviceAlloc() { cudaFree(ptr); }
  DeviceAlloc(const DeviceAlloc&) = delete;
  DeviceAlloc& operator=(const DeviceAlloc&) = delete;
  float* floats() const { return static_cast<float*>(ptr); }
};

struct CublasHandle {
  cublasHandle_t handle = nullptr;
  CublasHandle() { LB_CUBLAS_CHECK(cublasCreate(&handle)); }
  ~CublasHandle() { cublasDestroy(handle); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
};

// Median of `samples` event-timed calls of `work` on the legacy default stream, after `warmups`.
double median_event_ms(const std::function<void()>& work, int warmups, int samples) {
  struct Events {
    cudaEvent_t start = nullptr, stop = nullptr;
    Events() {
      LB_CUDA_CHECK(cudaEventCreate(&start));
      LB_CUDA_CHECK(cudaEventCreate(&stop));
    }
    ~Events() {
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
    }
  } events;
  for (int i = 0; i < warmups; ++i) work();
  std::vector<double> ms;
  for (int i = 0; i < samples; ++i) {
    LB_CUDA_CHECK(cudaEventRecord(events.start, 0));
    work();
    LB_CUDA_CHECK(cudaEventRecord(events.stop, 0));
    LB_CUDA_CHECK(cudaEventSynchronize(events.stop));
    float t = 0;
    LB_CUDA_CHECK(cudaEventElapsedTime(&t, events.start, events.stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const std::size_t mid = ms.size() / 2;
  return ms.size() % 2 ? ms[mid] : 0.5 * (ms[mid - 1] + ms[mid]);
}

}  // namespace

nlohmann::json measure_copy_ceiling() {
  std::size_t free_bytes = 0, total_bytes = 0;
  LB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4);
  const DeviceAlloc src(bytes), dst(bytes);
  LB_CUDA_CHECK(cudaMemset(src.ptr, 0x3f, bytes));  // real bit patterns, not untouched pages
  const double median_ms = median_event_ms(
      [&] { LB_CUDA_CHECK(cudaMemcpy(dst.ptr, src.ptr, bytes, cudaMemcpyDeviceToDevice)); }, 3, 20);
  return {{"copy_gbps", 2.0 * bytes / (median_ms * 1e-3) / 1e9},
          {"copy_bytes", static_cast<double>(bytes)},
          {"copy_median_ms", median_ms},
          {"copy_method", "cudaMemcpy device-to-device, median of 20, bytes read + written"}};
}

nlohmann::json measure_sgemm_ceiling() {
  constexpr int n = 4096;
  const std::size_t count = std::size_t{n} * n;
  const DeviceAlloc a(count * sizeof(float)), b(count * sizeof(float)), c(count * sizeof(float));
  const HostBuffer host_a = random_vector(count, 1, 0), host_b = random_vector(count, 1, 1);
  LB_CUDA_CHECK(cudaMemcpy(a.ptr, host_a.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  LB_CUDA_CHECK(cudaMemcpy(b.ptr, host_b.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  const CublasHandle cublas;
  LB_CUBLAS_CHECK(cublasSetMathMode(cublas.handle, CUBLAS_DEFAULT_MATH));
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A*B is column-major C^T = B^T A^T: the same call with the operands swapped.
  const double median_ms = median_event_ms(
      [&] {
        LB_CUBLAS_CHECK(cublasSgemm(cublas.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.floats(), n,
                                    a.floats(), n, &zero, c.floats(), n));
      },
      3, 10);
  int version = 0;
  cublasGetVersion(cublas.handle, &version);
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
