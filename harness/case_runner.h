// Runs cases under Google Benchmark: setup, warm-up and the verified run once per case, then
// samples timed by the layer's clock and handed to Google Benchmark as manual time.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/gpu_monitor.h"
#include "harness/progress.h"
#include "harness/sampling.h"
#include "variants/variant.h"
#include "workloads/workload.h"

namespace lb {

struct Case {
  const Workload* workload = nullptr;
  const Layer* layer = nullptr;
  Shape shape;
  std::string name() const;  // "<workload>/<layer>/<size>", the Google Benchmark name
};

struct SampleStats {
  std::size_t count = 0;
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0, rel_stddev = 0;
};
SampleStats summarize(const SampleSeries& series);  // median, min, max added to the series' mean and noise

struct CaseResult {
  Case spec;
  std::string status = "not run";  // ok | failed | skipped | not run (filtered out)
  std::string message;             // why, when not ok
  std::uint64_t seed = 0;
  bool verified = false;
  Verdict verdict;
  SampleStats stats;
  std::string cache_mode;           // "cold" (L2 flushed before each sample) or "hot"
  bool stream_held = false;         // the stream was held while each sample was enqueued
  bool noise_target_reached = false;
  std::string stop_reason;          // to_string(Stop): "noise target", "noise settled", ...
  double prepare_wall_s = 0;        // inputs, allocation, warm-up, verified run and its check
  double measurement_wall_s = 0;    // wall-clock time of the sampling, flushes included
  std::size_t throttled_samples = 0;  // discarded: SM clock under 75% of its default
  double mean_sm_clock_mhz = 0;       // over the kept samples; 0 when the clock was not read
  double gbps = 0, gflops = 0;
  double allocate_ms = 0;     // allocate(): device memory and one-time work
  double first_run_ms = 0;    // the first run(), host clock, launch to completion: lazy loading included
  double end_to_end_ms = 0;   // the verified run: upload + run + download, host clock
  std::vector<benchmark::BenchmarkReporter::Run> runs;  // what Google Benchmark reported
};

struct SuiteOptions {
  std::uint64_t seed = 0;     // every case's inputs derive from this and the case's name
  StoppingRule rule;
  bool cold = true;           // flush the L2 before each sample of a GPU layer
  L2Flusher* flusher = nullptr;  // present when a GPU layer runs
  StreamGate* gate = nullptr;    // present when a GPU layer runs
  SmClock* sm_clock = nullptr;   // present when NVML could read the SM clock
  double throttle_mhz = 0;       // samples under this SM clock are discarded
};

// Console reporter that prints Google Benchmark's table once per suite and keeps every run.
class SuiteReporter : public benchmark::ConsoleReporter {
 public:
  explicit SuiteReporter(Progress* progress);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void collect_into(std::vector<Run>* runs) { target_ = runs; }
  const nlohmann::json& context_json() const { return context_; }

 private:
  bool printed_context_ = false;
  nlohmann::json context_;
  std::vector<Run>* target_ = nullptr;
  Progress* progress_;
};

// Runs every case in order, one Google Benchmark registration at a time so that only one case's
// buffers are alive at once. Progress goes to stderr.
std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const SuiteOptions& options,
                                  SuiteReporter& reporter, Progress& progress);

}  // namespace lb
