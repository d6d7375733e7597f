// NVML, loaded at run time (libnvidia-ml ships with the driver, so it is absent where only the
// CUDA toolkit is): the few functions the harness reads, and one device's handle. The SM clock
// (sm_clock.h) and the other processes on the GPU (machine_load.h) read through it.
#pragma once
#include <memory>
#include <string>

namespace lb::nvml {

// The few NVML declarations the harness needs (nvml.h is not part of the CUDA toolkit everywhere).
using Return = int;  // nvmlReturn_t: 0 is NVML_SUCCESS
using Device = struct nvmlDevice_st*;
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
inline constexpr int kClockSm = 1;                  // NVML_CLOCK_SM

// nvmlProcessInfo_t of nvmlDeviceGet{Compute,Graphics}RunningProcesses_v3 (and v2's
// nvmlProcessInfo_v2_t, the same layout).
struct ProcessInfo {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

using ClockFn = Return (*)(Device, int, unsigned*);
using ProcessesFn = Return (*)(Device, unsigned*, ProcessInfo*);

// The library, initialised, and the device with this PCI bus id ("0000:1B:00.0"). Functions this
// driver's NVML lacks are null.
struct DeviceHandle {
  Device device = nullptr;
  ClockFn clock_info = nullptr;                  // nvmlDeviceGetClockInfo
  ClockFn default_applications_clock = nullptr;  // nvmlDeviceGetDefaultApplicationsClock
  ClockFn max_clock_info = nullptr;              // nvmlDeviceGetMaxClockInfo
  ProcessesFn compute_processes = nullptr;       // nvmlDeviceGetComputeRunningProcesses_v3 (or _v2)
  ProcessesFn graphics_processes = nullptr;      // nvmlDeviceGetGraphicsRunningProcesses_v3 (or _v2)
};

// nullptr, with why in `why_not`, when NVML cannot be loaded or initialised or does not know the
// device. The library stays loaded for the process (NVML's init is counted; nothing shuts it down).
std::unique_ptr<DeviceHandle> open_device(const std::string& pci_bus_id, std::string* why_not);

}  // namespace lb::nvml
