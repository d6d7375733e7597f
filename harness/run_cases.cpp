#include "harness/run_cases.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <set>

#include "common/elapsed.h"
#include "common/gpu.h"
#include "harness/interrupt.h"
#include "harness/measure.h"
#include "harness/prepare.h"

namespace lb {
namespace {

// Google Benchmark's two ways to end a case without a time: a skip says why it could not run
// here (SkipWithMessage, from Google Benchmark 1.8; older releases only have SkipWithError), an
// error says it went wrong (or, for an interrupted case, that its time is not a full measurement).
template <class State>
void report_not_ok(State& state, const CaseResult& r) {
  if constexpr (requires { state.SkipWithMessage(r.message.c_str()); }) {
    if (r.status == CaseStatus::kSkipped) return state.SkipWithMessage(r.message.c_str());
  }
  state.SkipWithError(r.message.c_str());
}

struct CaseRun {
  CaseResult result;
  bool prepared = false;
  std::unique_ptr<Variant> variant;
};

void prepare(CaseRun& run, CaseInputs& inputs, const Environment& env, LayerSessions& sessions) {
  run.prepared = true;
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

// Google Benchmark runs this with one iteration (per repetition): the iteration is a whole
// adaptive measurement, and its manual time is the median sample.
void run_case(benchmark::State& state, CaseRun& run, CaseInputs& inputs, const Environment& env,
              LayerSessions& sessions, Progress& progress) {
  CaseResult& r = run.result;
  if (!run.prepared) prepare(run, inputs, env, sessions);
  if (r.status == CaseStatus::kOk && interrupt_requested()) mark_interrupted(r, "after its verified run, before timing");
  if (r.status != CaseStatus::kOk) return report_not_ok(state, r);
  try {
    for (auto _ : state) {
      const SampleSeries series = take_samples(r, *run.variant, env, progress);
      if (series.count() > 0) record_samples(r, series);
      if (r.stop_reason == Stop::kInterrupted) {
        mark_interrupted(r, "after " + std::to_string(series.count()) + " samples: not a full measurement");
        return report_not_ok(state, r);
      }
      if (series.count() == 0) {
        r.status = CaseStatus::kFailed;
        r.message = "every sample was throttled (SM clock under 75% of its default): " +
                    std::to_string(r.throttled_samples) + " discarded";
        return report_not_ok(state, r);
      }
      // A rate no correct run can reach: the case fails, its figures kept in the record.
      r.plausibility = plausibility_limit(r, env);
      if (const std::string excess = rate_excess(*r.plausibility, r.plausibility->rate(r.gbps, r.gflops));
          !excess.empty()) {
        r.status = CaseStatus::kFailed;
        r.message = skipped_work_message(excess);
        return report_not_ok(state, r);
      }
      state.SetIterationTime(r.stats.median_ms * 1e-3);
    }
  } catch (const std::exception& e) {
    r.status = CaseStatus::kFailed;
    r.message = std::string("during timing: ") + e.what();
    return report_not_ok(state, r);
  }
  state.counters["GB/s"] = r.gbps;
  state.counters["GFLOP/s"] = r.gflops;
  state.counters["noise%"] = 100.0 * r.stats.rel_stddev;
  state.counters["samples"] = static_cast<double>(r.stats.count);
  state.SetLabel(r.noise_target_reached() ? "verified"
                                          : "verified, noise above target (" + to_string(r.stop_reason) + ")");
}

// The case under Google Benchmark: registered alone, run, and unregistered, so that only one
// case's buffers are alive at once.
void time_case(CaseRun& run, CaseInputs& inputs, const Environment& env, LayerSessions& sessions,
               SuiteReporter& reporter, Progress& progress) {
  reporter.collect_into(&run.result.runs);
  benchmark::RegisterBenchmark(run.result.spec.name().c_str(),
                               [&](benchmark::State& st) { run_case(st, run, inputs, env, sessions, progress); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  reporter.collect_into(nullptr);
  std::fflush(stdout);
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
                                  SuiteReporter& reporter, Progress& progress) {
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
      time_case(run, inputs, env, sessions, reporter, progress);
    }
    if (gpu && gpu_gone.empty() && r.status == CaseStatus::kFailed) {
      run.variant.reset();
      if (const std::string fault = cuda_context_fault(); !fault.empty())
        gpu_gone = "the CUDA context died in " + r.spec.name() + " (" + fault + "); no GPU case can run after it";
    }
    results.push_back(std::move(r));
  }
  progress.clear();
  return results;
}

}  // namespace lb
