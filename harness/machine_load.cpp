#include "harness/machine_load.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace lb {
namespace {

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// /proc/stat's busy ticks (user, nice, system, irq, softirq, steal) of the CPUs in `mask`.
bool busy_ticks_of(const cpu_set_t& mask, long long* busy, std::string* why_not) {
  std::ifstream stat("/proc/stat");
  if (!stat) {
    *why_not = "/proc/stat cannot be read";
    return false;
  }
  std::string line;
  *busy = 0;
  int counted = 0;
  while (std::getline(stat, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(fields >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) continue;
    fields >> steal;  // absent before Linux 2.6.11
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mask)) continue;
    *busy += user + nice + system + irq + softirq + steal;
    ++counted;
  }
  if (counted == 0) {
    *why_not = "/proc/stat lists none of this process's CPUs";
    return false;
  }
  return true;
}

// This process's user and system ticks, all its threads (/proc/self/stat fields 14 and 15, after
// the command name, which may hold spaces and parentheses: read from the last ')').
bool own_ticks(long long* ticks, std::string* why_not) {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) {
    *why_not = "/proc/self/stat cannot be read";
    return false;
  }
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  long long utime = 0, stime = 0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) utime = std::atoll(field.c_str());
    if (index == 15) stime = std::atoll(field.c_str());
  }
  if (!fields) {
    *why_not = "/proc/self/stat has fewer fields than expected";
    return false;
  }
  *ticks = utime + stime;
  return true;
}

}  // namespace

CpuMeter::Reading CpuMeter::now() {
  Reading r;
  r.when = std::chrono::steady_clock::now();
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) {
    r.why_not = "sched_getaffinity failed";
    return r;
  }
  r.cpus = CPU_COUNT(&mask);
  r.ok = busy_ticks_of(mask, &r.busy_ticks, &r.why_not) && own_ticks(&r.own_ticks, &r.why_not);
  return r;
}

void CpuMeter::start() { start_ = now(); }

void CpuMeter::stop(MachineLoad& load) const {
  const Reading end = now();
  load.read = true;
  double avg[1];
  if (getloadavg(avg, 1) == 1) load.load_avg_1m = avg[0];
  load.cpus = end.cpus;
  load.cpu_window_s = std::chrono::duration<double>(end.when - start_.when).count();
  const long ticks_per_s = sysconf(_SC_CLK_TCK);
  if (!start_.ok || !end.ok) {
    load.other_cpus_unavailable = start_.ok ? end.why_not : start_.why_not;
  } else if (ticks_per_s <= 0 || load.cpu_window_s <= 0) {
    load.other_cpus_unavailable = "no clock tick rate (sysconf(_SC_CLK_TCK))";
  } else {
    const long long others = (end.busy_ticks - start_.busy_ticks) - (end.own_ticks - start_.own_ticks);
    load.other_cpus = std::max(0.0, static_cast<double>(others) / static_cast<double>(ticks_per_s) / load.cpu_window_s);
    load.own_cpus = static_cast<double>(end.own_ticks - start_.own_ticks) / static_cast<double>(ticks_per_s) / load.cpu_window_s;
  }
}

std::vector<std::string> busy_reasons(const MachineLoad& load, bool gpu_case, bool host_timed) {
  std::vector<std::string> reasons;
  if (!load.read) return reasons;
  if (gpu_case && load.other_gpu_pids && !load.other_gpu_pids->empty()) {
    const auto& pids = *load.other_gpu_pids;
    std::string text = pids.size() == 1 ? "another process on the GPU (pid "
                                        : std::to_string(pids.size()) + " other processes on the GPU (pids ";
    for (std::size_t i = 0; i < pids.size(); ++i) text += (i ? ", " : "") + std::to_string(pids[i]);
    reasons.push_back(text + ")");
  }
  if (host_timed) {
    if (load.other_cpus && load.cpu_window_s >= kMinCpuWindowS && *load.other_cpus >= kBusyOtherCpus)
      reasons.push_back("other processes kept " + fixed(*load.other_cpus, 1) + " of " + std::to_string(load.cpus) +
                        " CPUs busy");
    if (load.load_avg_1m && load.cpus > 0 && *load.load_avg_1m > kBusyLoadPerCpu * load.cpus)
      reasons.push_back("load average " + fixed(*load.load_avg_1m, 1) + " on " + std::to_string(load.cpus) + " CPUs");
  }
  return reasons;
}

std::vector<unsigned> other_pids(std::vector<unsigned> listed, unsigned own) {
  std::sort(listed.begin(), listed.end());
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
  const auto ours = std::find(listed.begin(), listed.end(), own);
  if (ours != listed.end()) listed.erase(ours);
  else if (!listed.empty()) listed.erase(listed.begin());  // ours, under the host's PID
  return listed;
}

std::unique_ptr<GpuProcesses> GpuProcesses::open(const std::string& pci_bus_id, std::string* why_not) {
  auto nvml = nvml::open_device(pci_bus_id, why_not);
  if (!nvml) return nullptr;
  if (!nvml->compute_processes || !nvml->graphics_processes) {
    *why_not = "NVML lacks nvmlDeviceGet{Compute,Graphics}RunningProcesses (_v3 or _v2)";
    return nullptr;
  }
  return std::unique_ptr<GpuProcesses>(new GpuProcesses(std::move(nvml)));
}

std::optional<std::vector<unsigned>> GpuProcesses::others(std::string* why_not) const {
  std::vector<unsigned> listed;
  for (const auto& [query, name] : {std::pair{nvml_->compute_processes, "Compute"},
                                    std::pair{nvml_->graphics_processes, "Graphics"}}) {
    std::vector<nvml::ProcessInfo> infos(16);
    nvml::Return rc = nvml::kErrorInsufficientSize;
    // The list may grow between the call that sizes it and the next: a few tries.
    for (int attempt = 0; attempt < 4 && rc == nvml::kErrorInsufficientSize; ++attempt) {
      unsigned count = static_cast<unsigned>(infos.size());
      rc = query(nvml_->device, &count, infos.data());
      if (rc == nvml::kSuccess) infos.resize(count);
      else if (rc == nvml::kErrorInsufficientSize) infos.resize(count + 8);
    }
    if (rc != nvml::kSuccess) {
      *why_not = std::string("nvmlDeviceGet") + name + "RunningProcesses failed (NVML error " + std::to_string(rc) + ")";
      return std::nullopt;
    }
    for (const nvml::ProcessInfo& info : infos) listed.push_back(info.pid);
  }
  return other_pids(std::move(listed), static_cast<unsigned>(getpid()));
}

}  // namespace lb
