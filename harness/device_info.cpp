#include "harness/device_info.h"

#include <cuda_runtime.h>

#include <chrono>

#include "harness/cuda_error.h"
#include "harness/elapsed.h"

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
    g_context_ms = ms_since(t0);
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

}  // namespace lb
