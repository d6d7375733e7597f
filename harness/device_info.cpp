#include "harness/device_info.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "harness/cuda_error.h"

namespace lb {
namespace {

double g_context_ms = 0.0;

int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
  return value;
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

std::string gpu_unavailable_reason() {
  static const std::string reason = []() -> std::string {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
    }
    if (count == 0) return "cudaGetDeviceCount: no CUDA device found";
    const auto t0 = std::chrono::steady_clock::now();
    // Since CUDA 12 cudaSetDevice creates the primary context; cudaFree(0) makes sure of it.
    cudaError_t init = cudaSetDevice(0);
    if (init == cudaSuccess) init = cudaFree(nullptr);
    if (init != cudaSuccess) {
      cudaGetLastError();
      return std::string("creating a context on device 0: ") + cudaGetErrorString(init);
    }
    g_context_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return {};
  }();
  return reason;
}

nlohmann::json device_json() {
  int device = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  LB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const int sm_clock_khz = attribute(cudaDevAttrClockRate, device);
  const int mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
  const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  int driver = 0, runtime = 0;
  LB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  LB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  // Double data rate: two transfers per memory clock across the whole bus.
  const double theoretical_gbps = 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  char pci[32] = {};
  cudaDeviceGetPCIBusId(pci, sizeof pci, device);
  return {
      {"index", device},
      {"name", prop.name},
      {"pci_bus_id", pci},
      {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
      {"sm_count", prop.multiProcessorCount},
      {"sm_clock_mhz", sm_clock_khz / 1000.0},
      {"memory_clock_mhz", mem_clock_khz / 1000.0},
      {"memory_bus_width_bits", bus_bits},
      {"memory_bytes", static_cast<double>(prop.totalGlobalMem)},
      {"l2_cache_bytes", prop.l2CacheSize},
      {"theoretical_bandwidth_gbps", theoretical_gbps},
      {"driver_version", version_text(driver)},
      {"runtime_version", version_text(runtime)},
      {"context_creation_ms", g_context_ms},
  };
}

nlohmann::json measure_copy_ceiling() {
  size_t free_bytes = 0, total_bytes = 0;
  LB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t bytes = std::min<size_t>(size_t{1} << 30, free_bytes / 4);
  void* src = nullptr;
  void* dst = nullptr;
  LB_CUDA_CHECK(cudaMalloc(&src, bytes));
  cudaError_t status = cudaMalloc(&dst, bytes);
  if (status != cudaSuccess) cudaFree(src);
  LB_CUDA_CHECK(status);
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<float> ms;
  auto release = [&] {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(src);
    cudaFree(dst);
  };
  try {
    LB_CUDA_CHECK(cudaEventCreate(&start));
    LB_CUDA_CHECK(cudaEventCreate(&stop));
    LB_CUDA_CHECK(cudaMemset(src, 0x3f, bytes));  // real bit patterns, not zero pages
    for (int i = 0; i < 3; ++i) LB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    for (int i = 0; i < 20; ++i) {
      LB_CUDA_CHECK(cudaEventRecord(start, 0));
      LB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
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
  const double median_ms = (ms[9] + ms[10]) / 2.0;
  return {{"copy_gbps", 2.0 * bytes / (median_ms * 1e-3) / 1e9},
          {"copy_bytes", static_cast<double>(bytes)},
          {"copy_median_ms", median_ms},
          {"copy_method", "cudaMemcpy device-to-device, median of 20, bytes read + written"}};
}

}  // namespace lb
