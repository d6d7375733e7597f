#pragma once
#include "harness/records.h"

namespace lb {
double host_memory_bytes();  // physical memory of this machine
HostInfo query_host_info();  // CPU model, logical CPUs, OpenMP threads, memory, OS
TaskInfo query_task_info();  // this process's pid, and its Slurm identity and GPUs from the environment
}  // namespace lb
