#include "harness/run_cases.h"

#include <chrono>
#include <cstdio>
#include <exception>

#include "common/elapsed.h"
#include "harness/measure.h"
#include "harness/prepare.h"

namespace lb {
namespace {

// Google Benchmark's two ways to end a case without a time: a skip says why it could not run
// here (SkipWithMessage, from Google Benchmark 1.8; older releases only have SkipWithError), an
// error says it went wrong.
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

// Google Benchmark runs this with one iteration (per repetition): the iteration is a whole
// adaptive measurement, and its manual time is the median sample.
void run_case(benchmark::State& state, CaseRun& run, CaseInputs& inputs, const Environment& env,
              LayerSessions& sessions, Progress& progress) {
  CaseResult& r = run.result;
  if (!run.prepared) {
    run.prepared = true;
    const auto t0 = std::chrono::steady_clock::now();
    run.variant = prepare_case(r, inputs, env, sessions);
    r.prepare_wall_s = ms_since(t0) / 1e3;
  }
  if (r.status != CaseStatus::kOk) return report_not_ok(state, r);
  try {
    for (auto _ : state) {
      const SampleSeries series = take_samples(r, *run.variant, env, progress);
      if (series.count() == 0) {
        r.status = CaseStatus::kFailed;
        r.message = "every sample was throttled (SM clock under 75% of its default): " +
                    std::to_string(r.throttled_samples) + " discarded";
        return report_not_ok(state, r);
      }
      record_samples(r, series);
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

}  // namespace

std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const Environment& env, LayerSessions& sessions,
                                  SuiteReporter& reporter, Progress& progress) {
  std::vector<CaseResult> results;
  CaseInputs inputs;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    progress.begin_case(i, cases.size(), cases[i].name());
    CaseRun run;
    run.result.spec = cases[i];
    reporter.collect_into(&run.result.runs);
    benchmark::RegisterBenchmark(cases[i].name().c_str(),
                                 [&](benchmark::State& st) { run_case(st, run, inputs, env, sessions, progress); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();
    reporter.collect_into(nullptr);
    std::fflush(stdout);
    results.push_back(std::move(run.result));
  }
  progress.clear();
  return results;
}

}  // namespace lb
