#include "harness/device_info.h"

#include <cuda_runtime.h>

#include <cstdio>

#include "common/cuda_check.h"
#include "common/gpu.h"
#include "harness/device_peaks.h"

namespace lb {
namespace {

// "GPU-" and the 16 bytes as 8-4-4-4-12 hex digits: nvidia-smi's and NVML's form of the UUID.
std::string uuid_text(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    text += hex;
  }
  return text;
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

DeviceInfo query_device_info() {
  int device = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  LB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  int driver = 0, runtime = 0;
  LB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  LB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const DevicePeaks peaks = query_device_peaks();  // the clocks, the bus and the peaks' arithmetic, in one place
  char pci[32] = {};
  cudaDeviceGetPCIBusId(pci, sizeof pci, device);
  DeviceInfo d;
  d.index = device;
  d.name = prop.name;
  d.pci_bus_id = pci;
  d.uuid = uuid_text(prop.uuid);
  d.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  d.sm_count = prop.multiProcessorCount;
  d.sm_clock_mhz = peaks.sm_clock_mhz;
  d.memory_clock_mhz = peaks.memory_clock_mhz;
  d.memory_bus_width_bits = peaks.memory_bus_width_bits;
  d.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  d.l2_cache_bytes = prop.l2CacheSize;
  d.theoretical_bandwidth_gbps = peaks.dram_gbps;
  if (peaks.fp32_gflops > 0) d.theoretical_fp32_gflops = peaks.fp32_gflops;
  d.driver_version = version_text(driver);
  d.runtime_version = version_text(runtime);
  d.context_creation_ms = gpu_probe().context_creation_ms;
  return d;
}

}  // namespace lb
