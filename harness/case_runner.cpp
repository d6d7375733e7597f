#include "harness/case_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <new>

#include "harness/cuda_error.h"
#include "workloads/problem.h"

namespace lb {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

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
  std::vector<float> result;

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

void fill_nan(std::vector<float>& v) {
  const auto n = static_cast<std::int64_t>(v.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) v[i] = std::nanf("");
}

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
    std::vector<float>& result = cs.host->result;
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
    // element nothing writes fails. Timed end to end on the host, copies included.
    fill_nan(result);
    t0 = std::chrono::steady_clock::now();
    cs.variant->upload(problem);
    cs.variant->run();
    cs.variant->download(result);
    r.end_to_end_ms = ms_since(t0);

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

void measure(benchmark::State& state, CaseState& cs, const SuiteOptions& options) {
  CaseResult& r = cs.result;
  if (!cs.prepared) {
    cs.prepared = true;
    prepare(cs, options);
  }
  if (r.status != "ok") {
    state.SkipWithError(r.message.c_str());
    return;
  }
  std::vector<double> samples;
  try {
    for (auto _ : state) {
      cs.clock->start();
      cs.variant->run();
      const double ms = cs.clock->stop_ms();
      state.SetIterationTime(ms * 1e-3);
      samples.push_back(ms);
    }
  } catch (const std::exception& e) {
    r.status = "failed";
    r.message = std::string("during timing: ") + e.what();
    state.SkipWithError(r.message.c_str());
    return;
  }
  // Google Benchmark calls this function with growing iteration counts; the last call's samples
  // are the ones it reports, so they are the ones kept.
  r.stats = summarize(std::move(samples));
  const double seconds = r.stats.median_ms * 1e-3;
  r.gbps = r.spec.workload->bytes_moved(r.spec.shape) / seconds / 1e9;
  r.gflops = r.spec.workload->flops(r.spec.shape) / seconds / 1e9;
  state.counters["GB/s"] = r.gbps;
  state.counters["GFLOP/s"] = r.gflops;
  state.SetLabel("verified");
}

}  // namespace

std::string Case::name() const { return workload->name() + "/" + layer->name + "/" + workload->size_label(shape); }

SampleStats summarize(std::vector<double> samples) {
  SampleStats s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  s.median_ms = samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
  s.min_ms = samples.front();
  s.max_ms = samples.back();
  double sum = 0;
  for (double v : samples) sum += v;
  s.mean_ms = sum / samples.size();
  double var = 0;
  for (double v : samples) var += (v - s.mean_ms) * (v - s.mean_ms);
  s.rel_stddev = samples.size() > 1 ? std::sqrt(var / (samples.size() - 1)) / s.mean_ms : 0.0;
  return s;
}

SuiteReporter::SuiteReporter()
    : benchmark::ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}

bool SuiteReporter::ReportContext(const Context& context) {
  if (printed_context_) return true;
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
  benchmark::ConsoleReporter::ReportRuns(runs);
  if (target_) target_->insert(target_->end(), runs.begin(), runs.end());
}

std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const SuiteOptions& options,
                                  SuiteReporter& reporter) {
  std::vector<CaseResult> results;
  SharedHost host;
  const auto suite_start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::fprintf(stderr, "[%zu/%zu %.0fs] %s\n", i + 1, cases.size(), ms_since(suite_start) / 1e3,
                 cases[i].name().c_str());
    std::fflush(stderr);
    CaseState cs;
    cs.result.spec = cases[i];
    cs.host = &host;
    reporter.collect_into(&cs.result.runs);
    benchmark::RegisterBenchmark(cases[i].name().c_str(),
                                 [&cs, &options](benchmark::State& st) { measure(st, cs, options); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();
    reporter.collect_into(nullptr);
    std::fflush(stdout);
    results.push_back(std::move(cs.result));
  }
  return results;
}

}  // namespace lb
