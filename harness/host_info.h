#pragma once
#include "harness/records.h"

namespace lb {
double host_memory_bytes();  // physical memory of this machine
HostInfo query_host_info();  // CPU model, logical CPUs, OpenMP threads, memory, OS
}  // namespace lb
