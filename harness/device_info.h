// What the results record about the GPU.
#pragma once
#include "harness/records.h"

namespace lb {

// Name, compute capability, SMs, clocks, bus width, L2, memory, theoretical bandwidth and fp32 rate
// (device_peaks.h), driver and runtime versions, and the time the probe took to create the context
// (common/gpu.h). Call only when gpu_unavailable_reason() is empty.
DeviceInfo query_device_info();

}  // namespace lb
