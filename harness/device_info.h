// What the results record about the GPU, and the ceilings measured on it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace lb {

// Empty when a CUDA device is usable; otherwise why not, with CUDA's error text. The first call
// creates the device's primary context and times that (context_creation_ms in device_json()).
std::string gpu_unavailable_reason();

// Name, compute capability, SMs, clocks, bus width, L2, memory, theoretical bandwidth, driver and
// runtime versions, context creation time. Call only when gpu_unavailable_reason() is empty.
nlohmann::json device_json();

}  // namespace lb
