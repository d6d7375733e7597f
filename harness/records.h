// What a run knows about itself, as typed records: the device, the ceilings, the measurement
// settings, the host, the context probe's readings, each layer's record, and the run's context
// around them. The harness fills them, the summary, the ladder table and the fractions of the
// ceiling read them, and one serializer (results_json.h) turns them into the results file's JSON,
// so no part of the program reads back what another wrote as JSON. docs/json-schema.md documents
// each field under the name the JSON gives it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/context_probe.h"  // ProbeReading
#include "harness/device_peaks.h"
#include "harness/sampling.h"
#include "variants/one_time_cost.h"
#include "workloads/workload.h"

namespace lb {

// The GPU (context.device): as the CUDA runtime reports it, peak clocks.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string uuid;  // "GPU-8b1c0b9e-...", as nvidia-smi -L prints it: the device across hosts and reboots
  std::string pci_bus_id;
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  double sm_clock_mhz = 0;
  double memory_clock_mhz = 0;
  int memory_bus_width_bits = 0;
  double memory_bytes = 0;
  int l2_cache_bytes = 0;
  double theoretical_bandwidth_gbps = 0;
  std::optional<double> theoretical_fp32_gflops;  // nullopt for an architecture the lanes table does not know
  std::string driver_version, runtime_version;     // "13.0"
  double context_creation_ms = 0;                  // the first CUDA call, which created the primary context
};

// The ceilings a timed GPU run measures on the harness's stream (context.ceilings). Both are absent
// from a CPU-only run and from a check; a timed GPU run has both (measuring either can only throw).
struct CopyCeiling {
  double gbps = 0;       // bytes read + written, decimal GB/s
  double bytes = 0;      // the size of one copy
  double median_ms = 0;
  std::string method;
};
struct SgemmCeiling {
  double gflops = 0;
  std::string size;      // "4096x4096x4096"
  double median_ms = 0;
  std::string method;
};
struct Ceilings {
  std::optional<CopyCeiling> copy;
  std::optional<SgemmCeiling> sgemm;
};

// The SM clock as the timed samples read it (context.measurement.sm_clock).
struct SmClockSetting {
  std::string unavailable;       // why NVML cannot read it; empty when it can (the two below then hold)
  double default_mhz = 0;
  double throttle_below_mhz = 0;  // a sample under this clock is discarded
};

// How the cases are measured, as the results record it (context.measurement).
struct MeasurementSettings {
  bool check_only = false;  // mode "check" (run --check): nothing below is recorded
  bool gpu_host_clock = false;  // gpu_timing "host": --host-clock, every GPU layer on the host clock
  bool gpu_cold = true;     // gpu_cache_mode: the L2 flushed before each GPU sample; CPU layers run hot
  StoppingRule rule;
  std::optional<std::size_t> l2_flush_bytes;  // timed GPU runs: what the cold-mode flush reads
  std::optional<SmClockSetting> sm_clock;     // timed GPU runs
};

// The host (context.host).
struct HostInfo {
  std::string hostname;
  std::string cpu_model;
  unsigned logical_cpus = 0;
  int openmp_threads = 0;
  double memory_bytes = 0;
  std::string os;  // "Linux 6.8.0"
};

// Which task of a fleet ran this: the scheduler's identity of the process (Slurm's job, array task,
// rank, step, node) and the GPUs it was given, as the environment says, so that runs of one device
// by several tasks stay apart when merged (layerbench merge). Variables that are not set are left
// out; pid is always there.
struct TaskInfo {
  long pid = 0;
  std::map<std::string, std::string> environment;  // "slurm_job_id" -> "4242", "cuda_visible_devices" -> "0"
};

// Google Benchmark's CPU information (benchmark::CPUInfo), written at the top of the context
// under Google Benchmark's names (num_cpus, mhz_per_cpu, cpu_scaling_enabled, caches, load_avg).
struct CpuInfo {
  struct Cache {
    std::string type;
    int level = 0;
    int size = 0;
    int num_sharing = 0;
  };
  int num_cpus = 0;
  int mhz_per_cpu = 0;
  bool scaling_enabled = false;
  std::vector<Cache> caches;
  std::vector<double> load_avg;
};

// What the results record about a layer that could run (context.layers.<name>).
struct LayerRecord {
  bool on_gpu = false;
  bool host_clock = false;  // a GPU layer timed by the host clock (Layer::timing): JAX's
  // Layer::describe() with its session's LayerSession::describe() over it: each layer's free-form
  // record, written as it is.
  nlohmann::json described = nlohmann::json::object();
  CostLog one_time_costs;  // what opening the layer's session cost
};

// context.layerbench.interrupted: a run that Ctrl-C or SIGTERM stopped.
struct InterruptInfo {
  std::string signal;  // "SIGINT", "SIGTERM"
  std::size_t cases_planned = 0, cases_started = 0;
};

// context.ladder: the run was `layerbench ladder`.
struct LadderInfo {
  std::string workload, layer, size;
  std::size_t rungs = 0;
  std::string top_line;  // "vendor" or "ceiling"
};

// Everything the results' context records: measured or known once per run.
struct RunContext {
  std::string date;  // when the run started, ISO 8601 with offset
  std::string run_id;  // 32 hex digits, random: no two runs share it (record.h, new_run_id)
  std::string executable;
  std::string command_line;
  std::uint64_t seed = 0;
  double suite_wall_s = 0;  // wall time of the cases
  std::optional<InterruptInfo> interrupted;
  HostInfo host;
  TaskInfo task;
  CpuInfo cpu;
  std::optional<DeviceInfo> device;  // nullopt without a usable GPU
  std::optional<DevicePeaks> peaks;
  Ceilings ceilings;
  std::optional<std::vector<ProbeReading>> context_probe;  // timed GPU runs only
  MeasurementSettings measurement;
  std::string gpu_unavailable_reason;                    // recorded when layers were left out for it
  std::map<std::string, std::string> layers_unavailable;  // layer -> why
  std::map<std::string, LayerRecord> layers;             // the layers that could run, by name
  std::vector<const Workload*> workloads;                // their descriptors are recorded
  std::optional<LadderInfo> ladder;
};

// A GPU case's rate over the run's figures of the device: its ceilings (copy, cuBLAS) and its
// theoretical peaks. Each nullopt for a CPU layer (the device does not bound the host), a case
// without a rate, or a run without that figure.
struct CaseFractions {
  std::optional<double> of_copy, of_theoretical_bandwidth, of_cublas, of_theoretical_fp32;
};
CaseFractions case_fractions(const CaseResult& r, const RunContext& context);

// A run's record: its context and its cases (one CaseResult per case, or per repetition of a case
// with --benchmark_repetitions), in the order they ran.
struct RunRecord {
  RunContext context;
  std::vector<CaseResult> cases;
};

}  // namespace lb
