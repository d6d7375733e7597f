// The driver API + NVRTC layer: what the runtime API does for you, done by hand. The kernel text is
// the runtime layer's, compiled at run time for this device; the context, the module, the kernel
// lookup by name and the packing of arguments are explicit.
#pragma once
#include <cuda.h>

#include <span>
#include <string>

#include "variants/driver/driver_api.h"
#include "variants/gpu_launch.h"
#include "variants/variant.h"

namespace lb::driver {

// Device memory from cuMemAlloc, freed by cuMemFree. Move-only.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t floats);
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory();

  CUdeviceptr get() const { return ptr_; }
  void upload(std::span<const float> host);    // cuMemcpyHtoD: synchronous
  void download(std::span<float> host) const;  // cuMemcpyDtoH: waits for earlier work
 private:
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

// The function `name` from workloads/<workload>/kernels.cu, compiled by NVRTC for this device's
// architecture (or read from the kernel cache) and loaded as a module once per process. The
// compile and load times are recorded as the layer's one-time costs.
CUfunction load_kernel(const std::string& workload, const char* name);

int sm_count();

// cuLaunchKernel on the legacy default stream, where the layer's events are recorded. `args` holds
// one pointer per kernel parameter, in order: the driver copies the values they point to.
void launch(CUfunction kernel, unsigned grid_x, unsigned grid_y, unsigned block, void** args);

}  // namespace lb::driver
