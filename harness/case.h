// One case (a workload, a layer, a size) and what running it produced.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/device_peaks.h"
#include "harness/machine_load.h"
#include "harness/sampling.h"
#include "variants/variant.h"
#include "workloads/ladder.h"
#include "workloads/workload.h"

namespace lb {

struct Case {
  const Workload* workload = nullptr;
  const Layer* layer = nullptr;
  Shape shape;
  const Rung* rung = nullptr;  // a ladder rung run through the layer instead of its own kernel
  // Why the case cannot run on this machine, known when planned ("does not fit in host memory:
  // ..."); empty when it can. Such a case is recorded as skipped with this reason, never prepared.
  std::string does_not_fit;
  // "<workload>/<layer>/<size>", the Google Benchmark name; with a rung
  // "<workload>/<layer>:<NN_name>/<size>" ("matmul/runtime:03_smem_tiling/4096x4096x4096").
  std::string name() const;
  std::string layer_label() const;  // "runtime", or "runtime:03_smem_tiling" with a rung
};

enum class CaseStatus {
  kNotRun,   // not reached
  kOk,       // verified and timed
  kFailed,   // wrong result, or an error
  kSkipped,  // could not run here (did not fit in memory, the CUDA context died); says why
  kInterrupted,  // Ctrl-C or SIGTERM stopped it; the samples taken before are kept
};
// "not run", "ok", "failed", "skipped", "interrupted" (as in the JSON)
const char* to_string(CaseStatus status);

struct SampleStats {
  std::size_t count = 0;
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0, rel_stddev = 0;
};
SampleStats summarize(const SampleSeries& series);  // median, min, max added to the series' mean and noise

struct CaseResult {
  Case spec;
  CaseStatus status = CaseStatus::kNotRun;
  std::string message;  // why, when not ok
  std::uint64_t seed = 0;
  bool checked = false; // the verified run happened: `verdict` holds its outcome
  Verdict verdict;      // verdict.passed: the result matched the reference
  SampleStats stats;
  bool l2_flushed = false;            // cold: the L2 was flushed before each sample
  bool stream_held = false;           // the stream was held while each sample was enqueued
  Stop stop_reason = Stop::kContinue;
  double prepare_wall_s = 0;          // inputs, allocation, warm-up, verified run and its check
  double measurement_wall_s = 0;      // wall-clock time of the sampling, flushes included
  std::size_t throttled_samples = 0;  // discarded: SM clock under 75% of its default
  double mean_sm_clock_mhz = 0;       // over the kept samples; 0 when the clock was not read
  double gbps = 0, gflops = 0;
  // A timed case's plausibility check (device_peaks.h): the limit its rate was held to, or why it
  // was not checked. A rate above the limit failed the case ("faster than the hardware allows").
  std::optional<RateLimit> plausibility;
  double allocate_ms = 0;     // allocate(): device memory and one-time work
  double first_run_ms = 0;    // the first run(), host clock, launch to completion: lazy loading included
  double end_to_end_ms = 0;   // the verified run: upload + run + download, host clock
  CostLog one_time_costs;     // what the layer reported paying once during this case
  // A case of a timed run that was prepared is a benchmark (benchmark_run.h): named
  // "<name>/manual_time", its samples the iterations. One skipped before it was prepared, and every
  // case of a check, was never timed: its entry has the bare name and no iterations.
  bool benchmarked = false;
  // --benchmark_repetitions=N: a benchmarked case is measured N times, one CaseResult each, the
  // preparation (verified run, one-time costs) shared and repeated on each.
  int repetition_index = 0;
  int repetitions = 1;
  double cpu_ms = 0;          // this thread's CPU time while sampling (flushes and clock reads included)
  // Whose clock the time is: the device's (a GPU case whose work was enqueued behind the held
  // stream: the device events time the work alone) or, when false, the host's too (a CPU layer; a
  // launch-overhead workload, which times how fast the host feeds the GPU; a GPU case whose run()
  // waits, so the events include the host's work between launches). Host-timed cases differ more
  // between runs than within one: `compare` allows for it.
  bool host_timed = false;
  // The kept samples, as the results keep them (kept_samples_for_results): in the order taken.
  std::vector<double> samples_ms;
  MachineLoad load;                   // what else used the machine while it was sampled
  std::vector<std::string> busy;      // busy_reasons(load, ...): empty when the machine was not busy

  bool noise_target_reached() const { return stop_reason == Stop::kNoiseReached; }
};

// The kept samples' statistics on `r`, the samples the results keep, and the rates of its median
// (GB/s, GFLOP/s). `series` must hold at least one sample.
void record_samples(CaseResult& r, const SampleSeries& series);

// The samples a results file keeps, enough for a rank test afterwards and compact: all of them up
// to kKeptSamples, else kKeptSamples of them evenly spaced in the order taken (the i-th kept is
// sample floor(i * count / kKeptSamples)), each rounded to 4 significant digits.
inline constexpr std::size_t kKeptSamples = 500;
std::vector<double> kept_samples_for_results(const std::vector<double>& samples);
double round_significant(double v, int digits);

}  // namespace lb
