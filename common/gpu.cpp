#include "common/gpu.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <chrono>
#include <string>

#include "common/cuda_check.h"
#include "common/elapsed.h"

namespace lb {
namespace {

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// Why CUDA cannot be used here, in the user's terms: CUDA's own text for "no driver" and "old
// driver" is the same ("CUDA driver version is insufficient for CUDA runtime version"), which sends
// someone without any driver hunting for a driver upgrade.
std::string why_no_cuda(cudaError_t status) {
  if (status == cudaErrorNoDevice) return "no CUDA device";
  if (status == cudaErrorInsufficientDriver) {
    if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
      dlclose(driver);
      int driver_version = 0, runtime_version = 0;
      cudaDriverGetVersion(&driver_version);
      cudaRuntimeGetVersion(&runtime_version);
      return "driver older than the runtime (driver " + cuda_version(driver_version) + ", runtime " +
             cuda_version(runtime_version) + ")";
    }
    return "no CUDA driver (libcuda.so.1 not found)";
  }
  return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
}

}  // namespace

const GpuProbe& gpu_probe() {
  static const GpuProbe probe = [] {
    GpuProbe p;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      p.unavailable_reason = why_no_cuda(status);
      return p;
    }
    if (count == 0) {
      p.unavailable_reason = "no CUDA device";
      return p;
    }
    const auto t0 = std::chrono::steady_clock::now();
    // Since CUDA 12 cudaSetDevice creates the primary context; cudaFree(0) makes sure of it.
    cudaError_t init = cudaSetDevice(0);
    if (init == cudaSuccess) init = cudaFree(nullptr);
    if (init != cudaSuccess) {
      cudaGetLastError();
      p.unavailable_reason = std::string("creating a context on device 0: ") + cudaGetErrorString(init);
      return p;
    }
    p.context_creation_ms = ms_since(t0);
    return p;
  }();
  return probe;
}

std::string gpu_unavailable_reason() { return gpu_probe().unavailable_reason; }

DeviceLimits device_limits() {
  DeviceLimits limits;
  if (!gpu_probe().unavailable_reason.empty()) return limits;
  const cudaDeviceAttr attributes[3] = {cudaDevAttrMaxGridDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxGridDimZ};
  for (int i = 0; i < 3; ++i) {
    int value = 0;
    LB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attributes[i], 0));
    limits.grid[static_cast<std::size_t>(i)] = value;
  }
  cudaDeviceProp prop{};
  LB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  limits.block = BlockLimits{prop.name, "sm_" + std::to_string(prop.major) + std::to_string(prop.minor),
                             prop.maxThreadsPerBlock, prop.regsPerBlock, static_cast<long long>(prop.sharedMemPerBlock),
                             static_cast<long long>(prop.sharedMemPerBlockOptin)};
  std::size_t free_bytes = 0, total_bytes = 0;
  LB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  limits.memory_bytes = static_cast<double>(total_bytes);
  limits.from_device = true;
  return limits;
}

int visible_device_count(std::string* why_none) {
  int count = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
    cudaGetLastError();
    *why_none = why_no_cuda(status);
    return 0;
  }
  if (count == 0) *why_none = "no CUDA device";
  return count;
}

std::string cuda_context_fault() {
  if (cudaDeviceSynchronize() == cudaSuccess) return "";
  cudaGetLastError();  // clears an error that is not sticky (a bad launch configuration, say)
  const cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) return "";
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

int sm_count() {
  int device = 0, count = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

}  // namespace lb
