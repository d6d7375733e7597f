#include "harness/case_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <new>
#include <stdexcept>

#include "harness/cuda_error.h"
#include "harness/elapsed.h"
#include "workloads/problem.h"

namespace lb {
namespace {

// Inputs belong to a (workload, size), not to a layer: every layer of one run gets the same
// inputs, and they are drawn once, not once per layer (at n = 2^28 that is gigabytes).
std::uint64_t problem_seed(std::uint64_t suite_seed, const Case& c) {
  return suite_seed ^ std::hash<std::string>{}(c.workload->name() + "/" + c.workload->size_label(c.shape));
}

// Host memory shared by consecutive cases: the problem of the current (workload, size) and the
// buffer results are downloaded into, kept so that each is allocated and first touched once.
struct SharedHost {
  const Workload* workload = nullptr;
  Shape shape;
  std::uint64_t seed = 0;
  std::shared_ptr<const HostProblem> problem;
  HostBuffer result;

  const HostProblem& problem_for(const Case& c, std::uint64_t suite_seed) {
    if (!problem || workload != c.workload || !(shape == c.shape)) {
      problem.reset();  // free the old one before drawing the new one
      seed = problem_seed(suite_seed, c);
      problem = std::make_shared<const HostProblem>(c.workload->make_problem(c.shape, seed));
      workload = c.workload;
      shape = c.shape;
    }
    return *problem;
  }
};

// Everything one case keeps alive while Google Benchmark calls its function.
struct CaseState {
  CaseResult result;
  bool prepared = false;
  SharedHost* host = nullptr;
  std::unique_ptr<Variant> variant;
  std::unique_ptr<SampleClock> clock;
};

// Once per case: inputs, allocation, warm-up, then the verified end-to-end run.
void prepare(CaseState& cs, const SuiteOptions& options) {
  CaseResult& r = cs.result;
  const Case& c = r.spec;
  try {
    const HostProblem& problem = cs.host->problem_for(c, options.seed);
    r.seed = cs.host->seed;
    HostBuffer& result = cs.host->result;
    result.resize(static_cast<std::size_t>(c.workload->output_elements(c.shape)));
    cs.variant = (*find_variant(c.layer->name, c.workload->name()))();
    cs.clock = c.layer->make_clock();

    auto t0 = std::chrono::steady_clock::now();
    cs.variant->allocate(c.shape);
    r.allocate_ms = ms_since(t0);

    // Warm-up. The first run pays for lazy module loading and first touches, on the host before
    // the work is enqueued, so it is timed on the host clock (launch to completion) as
    // first_run_ms and kept out of every other figure.
    cs.variant->upload(problem);
    t0 = std::chrono::steady_clock::now();
    cs.clock->start();
    cs.variant->run();
    cs.clock->stop_ms();
    r.first_run_ms = ms_since(t0);

    // The verified run: the output starts poisoned (problem.output; so does the host copy), so an
    // element nothing writes fails. Timed end to end on the host: for GPU layers the copies to
    // and from the device are part of the job; a CPU layer's upload and download only stage the
    // poison and the result for the check, which a CPU program would not do, so they stay out.
    fill_nan(result);
    const bool copies_count = c.layer->on_gpu;
    t0 = std::chrono::steady_clock::now();
    cs.variant->upload(problem);
    if (!copies_count) t0 = std::chrono::steady_clock::now();
    cs.variant->run();  // CPU layers compute here, synchronously
    const double run_ms = ms_since(t0);
    cs.variant->download(result);
    r.end_to_end_ms = copies_count ? ms_since(t0) : run_ms;

    r.verdict = c.workload->verify(problem, result);
    r.verified = r.verdict.passed;
    r.status = r.verified ? "ok" : "failed";
    if (!r.verified) r.message = "verification failed: " + r.verdict.detail;
  } catch (const DeviceOutOfMemory& e) {
    r.status = "skipped";
    r.message = std::string("does not fit in device memory: ") + e.what();
  } catch (const std::bad_alloc&) {
    r.status = "skipped";
    r.message = "does not fit in host memory (std::bad_alloc)";
  } catch (const std::exception& e) {
    r.status = "failed";
    r.message = e.what();
  }
}

// Samples until the stopping rule says so. Each sample: (where it may) hold the stream, (cold mode)
// flush the L2, then the layer's clock around one run(); then (when NVML can) read the SM clock and
// discard the sample if the GPU was throttled. Returns the kept samples.
SampleSeries take_samples(CaseState& cs, const SuiteOptions& options, Progress& progress) {
  CaseResult& r = cs.result;
  const bool gpu = r.spec.layer->on_gpu;
  const bool flush = gpu && options.cold && options.flusher;
  // Launch-overhead cases measure how fast the host feeds the GPU: holding the stream would
  // measure the GPU draining a queue instead.
  StreamGate* gate =
      gpu && !cs.variant->run_waits() && r.spec.workload->launches(r.spec.shape) == 0 ? options.gate : nullptr;
  SmClock* sm_clock = gpu ? options.sm_clock : nullptr;
  SampleSeries series;
  double clock_sum = 0;
  r.throttled_samples = 0;
  const auto t0 = std::chrono::steady_clock::now();
  Stop stop = Stop::kContinue;
  while (stop == Stop::kContinue) {
    if (gate) gate->hold();
    try {
      if (flush) options.flusher->flush();  // same stream, before the start event: not timed
      cs.clock->start();
      cs.variant->run();
      cs.clock->stop();
    } catch (...) {
      if (gate) gate->release();  // else the device spins until the gate's timeout
      throw;
    }
    if (gate) gate->release();
    const double ms = cs.clock->elapsed_ms();
    if (gate && gate->timed_out())
      throw std::runtime_error("the stream was held back while run() enqueued, and run() waited for the device; "
                               "a variant whose run() waits must say so (Variant::run_waits)");
    bool keep = true;
    if (sm_clock) {
      const double mhz = sm_clock->current_mhz();
      keep = !(mhz > 0 && mhz < options.throttle_mhz);
      if (keep && mhz > 0) clock_sum += mhz;
    }
    if (keep) series.add(ms);
    else ++r.throttled_samples;
    stop = check_stop(series, ms_since(t0) / 1e3, options.rule);
    progress.tick();
  }
  r.cache_mode = flush ? "cold" : "hot";
  r.stream_held = gate != nullptr;
  r.measurement_wall_s = ms_since(t0) / 1e3;
  r.stop_reason = to_string(stop);
  r.noise_target_reached = stop == Stop::kNoiseReached;
  r.mean_sm_clock_mhz = series.count() > 0 && sm_clock ? clock_sum / series.count() : 0.0;
  return series;
}

// Google Benchmark runs this with one iteration (per repetition): the iteration is a whole
// adaptive measurement, and its manual time is the median sample.
void measure(benchmark::State& state, CaseState& cs, const SuiteOptions& options, Progress& progress) {
  CaseResult& r = cs.result;
  if (!cs.prepared) {
    cs.prepared = true;
    const auto t0 = std::chrono::steady_clock::now();
    prepare(cs, options);
    r.prepare_wall_s = ms_since(t0) / 1e3;
  }
  if (r.status != "ok") {
    state.SkipWithError(r.message.c_str());
    return;
  }
  try {
    for (auto _ : state) {
      const SampleSeries series = take_samples(cs, options, progress);
      if (series.count() == 0) {
        r.status = "failed";
        r.message = "every sample was throttled (SM clock under 75% of its default): " +
                    std::to_string(r.throttled_samples) + " discarded";
        state.SkipWithError(r.message.c_str());
        return;
      }
      r.stats = summarize(series);
      state.SetIterationTime(r.stats.median_ms * 1e-3);
    }
  } catch (const std::exception& e) {
    r.status = "failed";
    r.message = std::string("during timing: ") + e.what();
    state.SkipWithError(r.message.c_str());
    return;
  }
  const double seconds = r.stats.median_ms * 1e-3;
  r.gbps = r.spec.workload->bytes_moved(r.spec.shape) / seconds / 1e9;
  r.gflops = r.spec.workload->flops(r.spec.shape) / seconds / 1e9;
  state.counters["GB/s"] = r.gbps;
  state.counters["GFLOP/s"] = r.gflops;
  state.counters["noise%"] = 100.0 * r.stats.rel_stddev;
  state.counters["samples"] = static_cast<double>(r.stats.count);
  state.SetLabel(r.noise_target_reached ? "verified" : "verified, noise above target (" + r.stop_reason + ")");
}

}  // namespace

std::string Case::name() const { return workload->name() + "/" + layer->name + "/" + workload->size_label(shape); }

SampleStats summarize(const SampleSeries& series) {
  SampleStats s;
  s.count = series.count();
  if (s.count == 0) return s;
  std::vector<double> sorted = series.samples();
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = sorted.size() / 2;
  s.median_ms = sorted.size() % 2 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  s.min_ms = sorted.front();
  s.max_ms = sorted.back();
  s.mean_ms = series.mean_ms();
  s.rel_stddev = series.rel_stddev();
  return s;
}

SuiteReporter::SuiteReporter(Progress* progress)
    : benchmark::ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular), progress_(progress) {}

bool SuiteReporter::ReportContext(const Context& context) {
  if (printed_context_) return true;
  progress_->clear();
  printed_context_ = true;
  const auto& cpu = context.cpu_info;
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& cache : cpu.caches)
    caches.push_back({{"type", cache.type}, {"level", cache.level}, {"size", cache.size},
                      {"num_sharing", cache.num_sharing}});
  context_ = {{"num_cpus", cpu.num_cpus},
              {"mhz_per_cpu", static_cast<int>(cpu.cycles_per_second / 1e6)},
              {"cpu_scaling_enabled", cpu.scaling == benchmark::CPUInfo::ENABLED},
              {"caches", caches},
              {"load_avg", cpu.load_avg}};
  return benchmark::ConsoleReporter::ReportContext(context);
}

void SuiteReporter::ReportRuns(const std::vector<Run>& runs) {
  progress_->clear();
  benchmark::ConsoleReporter::ReportRuns(runs);
  if (target_) target_->insert(target_->end(), runs.begin(), runs.end());
}

std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const SuiteOptions& options,
                                  SuiteReporter& reporter, Progress& progress) {
  std::vector<CaseResult> results;
  SharedHost host;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    progress.begin_case(i, cases.size(), cases[i].name());
    CaseState cs;
    cs.result.spec = cases[i];
    cs.host = &host;
    reporter.collect_into(&cs.result.runs);
    benchmark::RegisterBenchmark(cases[i].name().c_str(),
                                 [&](benchmark::State& st) { measure(st, cs, options, progress); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();
    reporter.collect_into(nullptr);
    std::fflush(stdout);
    results.push_back(std::move(cs.result));
  }
  progress.clear();
  return results;
}

}  // namespace lb
