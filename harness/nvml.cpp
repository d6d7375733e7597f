#include "harness/nvml.h"

#include <dlfcn.h>

namespace lb::nvml {
namespace {

using InitFn = Return (*)();
using ByPciFn = Return (*)(const char*, Device*);

template <class Fn>
Fn symbol(void* library, const char* name) {
  return reinterpret_cast<Fn>(dlsym(library, name));
}

// The newest of the versioned names this library has (v3 and v2 share the layout of ProcessInfo;
// the unversioned v1 does not, so it is not used).
ProcessesFn processes_fn(void* library, const std::string& which) {
  const std::string base = "nvmlDeviceGet" + which + "RunningProcesses";
  if (auto fn = symbol<ProcessesFn>(library, (base + "_v3").c_str())) return fn;
  return symbol<ProcessesFn>(library, (base + "_v2").c_str());
}

}  // namespace

std::unique_ptr<DeviceHandle> open_device(const std::string& pci_bus_id, std::string* why_not) {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    *why_not = "NVML not available: libnvidia-ml.so.1 could not be loaded";
    return nullptr;
  }
  const auto init = symbol<InitFn>(library, "nvmlInit_v2");
  const auto by_pci = symbol<ByPciFn>(library, "nvmlDeviceGetHandleByPciBusId_v2");
  if (!init || !by_pci) {
    *why_not = "NVML lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2";
    return nullptr;
  }
  if (const Return rc = init(); rc != kSuccess) {
    *why_not = "nvmlInit_v2 failed (NVML error " + std::to_string(rc) + ")";
    return nullptr;
  }
  auto handle = std::make_unique<DeviceHandle>();
  if (const Return rc = by_pci(pci_bus_id.c_str(), &handle->device); rc != kSuccess) {
    *why_not = "NVML could not open the device " + pci_bus_id + " (NVML error " + std::to_string(rc) + ")";
    return nullptr;
  }
  handle->clock_info = symbol<ClockFn>(library, "nvmlDeviceGetClockInfo");
  handle->default_applications_clock = symbol<ClockFn>(library, "nvmlDeviceGetDefaultApplicationsClock");
  handle->max_clock_info = symbol<ClockFn>(library, "nvmlDeviceGetMaxClockInfo");
  handle->compute_processes = processes_fn(library, "Compute");
  handle->graphics_processes = processes_fn(library, "Graphics");
  return handle;
}

}  // namespace lb::nvml
