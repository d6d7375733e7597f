#include "common/gpu.h"

#include <cuda_runtime.h>

#include <chrono>

#include "common/cuda_check.h"
#include "common/elapsed.h"

namespace lb {

const GpuProbe& gpu_probe() {
  static const GpuProbe probe = [] {
    GpuProbe p;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      p.unavailable_reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
      return p;
    }
    if (count == 0) {
      p.unavailable_reason = "cudaGetDeviceCount: no CUDA device found";
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

int sm_count() {
  int device = 0, count = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

}  // namespace lb
