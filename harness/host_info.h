#pragma once
#include <nlohmann/json.hpp>

namespace lb {
double host_memory_bytes();       // physical memory of this machine
nlohmann::json host_json();       // CPU model, logical CPUs, OpenMP threads, memory, OS
}  // namespace lb
