#include "harness/run_cases.h"

#include <time.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <set>

#include "common/elapsed.h"
#include "common/gpu.h"
#include "harness/benchmark_run.h"
#include "harness/interrupt.h"
#include "harness/measure.h"
#include "harness/prepare.h"

namespace lb {
namespace {

struct CaseRun {
  CaseResult result;
  std::unique_ptr<Variant> variant;
};

void prepare(CaseRun& run, CaseInputs& inputs, const Environment& env, LayerSessions& sessions) {
  const auto t0 = std::chrono::steady_clock::now();
  run.variant = prepare_case(run.result, inputs, env, sessions);
  run.result.prepare_wall_s = ms_since(t0) / 1e3;
}

// The plausibility check's limit for a timed case (device_peaks.h). CPU layers are left out: the
// device's peaks do not bound the host, and no host peak is measured. The fp32 peak is taken at
// the SM clock the samples ran at when GPU Boost ran it above the one the device reports.
RateLimit plausibility_limit(const CaseResult& r, const Environment& env) {
  const Figure figure = r.spec.workload->figure();
  if (!r.spec.layer->on_gpu)
    return RateLimit::unchecked(figure, "a CPU layer: the device's peaks do not bound the host");
  if (!env.peaks) return RateLimit::unchecked(figure, "no device peaks in this run");
  return rate_limit(*r.spec.workload, r.spec.shape, at_sm_clock(*env.peaks, r.mean_sm_clock_mhz), r.l2_flushed);
}

void mark_interrupted(CaseResult& r, const std::string& when) {
  r.status = CaseStatus::kInterrupted;
  r.message = std::string("interrupted (") + interrupt_signal_name() + ") " + when;
}

// This thread's CPU time, as Google Benchmark's timer reads it for a benchmark's CPU time.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// One measurement of a prepared case: its samples (measure.h), their statistics and rates, and the
// plausibility check. Sets r's status when it does not end ok.
void measure(CaseResult& r, Variant& variant, const Environment& env, Progress& progress) {
  const double cpu0 = thread_cpu_ms();
  try {
    const SampleSeries series = take_samples(r, variant, env, progress);
    r.cpu_ms = thread_cpu_ms() - cpu0;
    if (series.count() > 0) record_samples(r, series);
    if (r.stop_reason == Stop::kInterrupted) {
      mark_interrupted(r, "after " + std::to_string(series.count()) + " samples: not a full measurement");
      return;
    }
    if (series.count() == 0) {
      r.status = CaseStatus::kFailed;
      r.message = "every sample was throttled (SM clock under 75% of its default): " +
                  std::to_string(r.throttled_samples) + " discarded";
      return;
    }
    // A rate no correct run can reach: the case fails, its figures kept in the record.
    r.plausibility = plausibility_limit(r, env);
    if (const std::string excess = rate_excess(*r.plausibility, r.plausibility->rate(r.gbps, r.gflops));
        !excess.empty()) {
      r.status = CaseStatus::kFailed;
      r.message = skipped_work_message(excess);
    }
  } catch (const std::exception& e) {
    r.cpu_ms = thread_cpu_ms() - cpu0;
    r.status = CaseStatus::kFailed;
    r.message = std::string("during timing: ") + e.what();
  }
}

// A case of a timed run: prepared and verified once, then measured `repetitions` times, each
// repetition a result of its own and a row of the console table (then the aggregates).
void time_case(CaseRun& run, CaseInputs& inputs, const Environment& env, LayerSessions& sessions,
               ConsoleTable& console, Progress& progress, int repetitions, std::int64_t family,
               std::vector<CaseResult>& results) {
  CaseResult& prepared = run.result;
  prepared.benchmarked = true;
  prepared.repetitions = repetitions;
  prepare(run, inputs, env, sessions);
  if (prepared.status == CaseStatus::kOk && interrupt_requested())
    mark_interrupted(prepared, "after its verified run, before timing");
  if (prepared.status != CaseStatus::kOk) {
    console.report({benchmark_run(prepared, family)});
    results.push_back(prepared);
    return;
  }
  std::vector<BenchmarkRun> runs;
  for (int i = 0; i < repetitions && !(i > 0 && interrupt_requested()); ++i) {
    CaseResult r = prepared;  // the preparation's fields, and a fresh measurement
    r.repetition_index = i;
    measure(r, *run.variant, env, progress);
    runs.push_back(benchmark_run(r, family));
    console.report({runs.back()});
    const bool ok = r.status == CaseStatus::kOk;
    results.push_back(std::move(r));
    if (!ok) break;
  }
  console.report(aggregate_runs(runs));
}

}  // namespace

void read_context_probe(ContextProbe& probe, const std::string& when) {
  try {
    probe.read(when);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "layerbench: the context probe could not be read %s: %s\n", when.c_str(), e.what());
  }
}

std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const Environment& env, LayerSessions& sessions,
                                  ConsoleTable& console, Progress& progress, int repetitions) {
  std::vector<CaseResult> results;
  CaseInputs inputs;
  std::string gpu_gone;  // why GPU cases cannot run any more in this process
  std::set<const Layer*> probed;
  for (std::size_t i = 0; i < cases.size() && !interrupt_requested(); ++i) {
    progress.begin_case(i, cases.size(), cases[i].name());
    CaseRun run;
    CaseResult& r = run.result;
    r.spec = cases[i];
    const bool gpu = cases[i].layer->on_gpu;
    // The plan puts such a layer's cases last (plan.h); the probe shows what the others left.
    if (env.context_probe && !cases[i].layer->changes_context.empty() && gpu_gone.empty() &&
        probed.insert(cases[i].layer).second)
      read_context_probe(*env.context_probe, "before " + cases[i].layer->name);
    if (!cases[i].does_not_fit.empty()) {
      r.status = CaseStatus::kSkipped;
      r.message = cases[i].does_not_fit;
    } else if (gpu && !gpu_gone.empty()) {
      r.status = CaseStatus::kSkipped;
      r.message = gpu_gone;
    } else if (env.options.check_only) {
      prepare(run, inputs, env, sessions);
      run.variant.reset();
    } else {
      time_case(run, inputs, env, sessions, console, progress, repetitions, static_cast<std::int64_t>(i), results);
      run.variant.reset();  // only one case's buffers alive at once
    }
    if (!r.benchmarked) results.push_back(std::move(r));  // a benchmarked case pushed its repetitions
    if (gpu && gpu_gone.empty() && results.back().status == CaseStatus::kFailed) {
      run.variant.reset();
      if (const std::string fault = cuda_context_fault(); !fault.empty())
        gpu_gone = "the CUDA context died in " + cases[i].name() + " (" + fault + "); no GPU case can run after it";
    }
  }
  progress.clear();
  return results;
}

}  // namespace lb
