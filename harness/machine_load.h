// What else used the machine while a case was sampled, read around its sampling (measure.h): the
// host's load average, the CPU time other processes took on this process's CPUs, and the other
// processes on the GPU (NVML). A case is busy when another process shared what its time depends
// on: the GPU for a GPU case, the host's CPUs for a case timed by the host. The results record
// the readings and the reasons (`busy`), the console summary and the reports flag the case, and
// `compare` calls its verdict unclear (docs/methodology.md, "A busy machine").
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/nvml.h"

namespace lb {

struct MachineLoad {
  bool read = false;                // the readings were taken (a timed case that sampled)
  std::optional<double> load_avg_1m;  // getloadavg() when sampling ended
  // Other processes' CPU time on this process's CPUs (its affinity mask) over the sampling's wall
  // time, in CPUs (1.0: one CPU kept busy throughout): /proc/stat's busy time of those CPUs less
  // this process's own (/proc/self/stat). Read to the kernel's 10 ms ticks: meaningful over
  // samplings of kMinCpuWindowS and more.
  std::optional<double> other_cpus;
  // This process's own CPU time over the same window, in CPUs, from /proc/self/stat: about 1.0 for
  // a case whose work is one thread's (a launch loop), more where other threads of this process
  // (a library's thread pool, a compile) ran beside it. Read with other_cpus; nullopt without it.
  std::optional<double> own_cpus;
  double cpu_window_s = 0;          // the wall time it was read over
  int cpus = 0;                     // CPUs in this process's affinity mask
  std::string other_cpus_unavailable;
  // The processes other than this one that NVML listed on the GPU (compute or graphics) at the
  // start or the end of the sampling; nullopt (with why) where NVML could not say. In a PID
  // namespace (a container) NVML lists the host's PIDs, ours among them under a number we cannot
  // tell: when our PID is not listed, one listed process is taken as ours.
  std::optional<std::vector<unsigned>> other_gpu_pids;
  std::string gpu_processes_unavailable;
  // A CPU layer's case: whether each OpenMP thread ran on a CPU of its own (harness/host_threads.h),
  // and why not where it did not. nullopt for a GPU case.
  std::optional<bool> threads_pinned;
  std::string threads_unpinned_why;
};

// Thresholds: a case timed by the host is busy when other processes kept at least kBusyOtherCpus
// of its CPUs busy over a sampling of at least kMinCpuWindowS, or the load average was above
// kBusyLoadPerCpu per CPU (this process's own threads are at most one per CPU); a GPU case is busy
// when another process was on the GPU.
inline constexpr double kBusyOtherCpus = 1.0;
inline constexpr double kMinCpuWindowS = 0.1;
inline constexpr double kBusyLoadPerCpu = 2.0;

// Why the case was busy, one reason a line ("another process on the GPU (pid 4242)", "other
// processes kept 3.1 of 16 CPUs busy", "load average 40.2 on 16 CPUs"); empty when it was not.
std::vector<std::string> busy_reasons(const MachineLoad& load, bool gpu_case, bool host_timed);

// Other processes' CPU time on this process's CPUs between start() and stop().
class CpuMeter {
 public:
  void start();
  // Fills load.other_cpus (or other_cpus_unavailable), cpu_window_s, cpus and load_avg_1m.
  void stop(MachineLoad& load) const;

 private:
  struct Reading {
    bool ok = false;
    std::string why_not;
    long long busy_ticks = 0, own_ticks = 0;
    int cpus = 0;
    std::chrono::steady_clock::time_point when;
  };
  static Reading now();
  Reading start_;
};

// The processes on one GPU, through NVML.
class GpuProcesses {
 public:
  // nullptr (with why) when NVML cannot open the device or lacks the process queries.
  static std::unique_ptr<GpuProcesses> open(const std::string& pci_bus_id, std::string* why_not);
  // The PIDs of the processes on the GPU other than this one; nullopt with why when a query failed.
  std::optional<std::vector<unsigned>> others(std::string* why_not) const;

 private:
  explicit GpuProcesses(std::unique_ptr<nvml::DeviceHandle> nvml) : nvml_(std::move(nvml)) {}
  std::unique_ptr<nvml::DeviceHandle> nvml_;
};

// The PIDs of `listed` other than `own`; when `own` is not among them (a PID namespace), one
// fewer: the first is taken as ours. Sorted, each once.
std::vector<unsigned> other_pids(std::vector<unsigned> listed, unsigned own);

}  // namespace lb
