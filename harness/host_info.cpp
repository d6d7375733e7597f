#include "harness/host_info.h"

#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace lb {

double host_memory_bytes() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

HostInfo query_host_info() {
  std::string model = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  utsname os{};
  uname(&os);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return {.hostname = host,
          .cpu_model = model,
          .logical_cpus = std::thread::hardware_concurrency(),
          .openmp_threads = omp_get_max_threads(),
          .memory_bytes = host_memory_bytes(),
          .os = std::string(os.sysname) + " " + os.release};
}

TaskInfo query_task_info() {
  TaskInfo t;
  t.pid = static_cast<long>(getpid());
  for (const char* name : {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_PROCID",
                           "SLURM_STEP_ID", "SLURM_NODEID", "SLURM_LOCALID", "CUDA_VISIBLE_DEVICES"}) {
    if (const char* value = std::getenv(name)) {
      std::string key = name;
      for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      t.environment[key] = value;
    }
  }
  return t;
}

}  // namespace lb
