#include "harness/host_info.h"

#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

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

}  // namespace lb
