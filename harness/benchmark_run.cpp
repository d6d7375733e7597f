#include "harness/benchmark_run.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lb {
namespace {

constexpr const char* kTimeType = "manual_time";  // GPU samples are device time, handed over as manual time

// Google Benchmark 1.7 (Debian's, and the pinned tarball the build may compile) marks a run that
// did not time with error_occurred; 1.8 replaced it with `skipped`, which also tells a skip from an
// error. The build accepts either (find_package(benchmark 1.7)), so both are written here, once.
// 1.8's values are named through the field's type (internal::Skipped: 0 not skipped, 1 with a
// message, 2 with an error), as 1.7's headers have no such names.
template <class Run>
void mark_not_timed(Run& run, bool skip, const std::string& why) {
  if constexpr (requires { run.skip_message; }) {
    run.skipped = static_cast<decltype(run.skipped)>(skip ? 1 : 2);
    run.skip_message = why;
  } else {
    run.error_occurred = true;
    run.error_message = why;
  }
}

template <class Run>
bool is_not_timed(const Run& run) {
  if constexpr (requires { run.skip_message; }) return run.skipped != decltype(run.skipped){};
  else return run.error_occurred;
}

// Google Benchmark's statistics (its src/statistics.cc), with its edge cases: the median of fewer
// than three values is their mean; the standard deviation is the sample one, 0 for one value.
double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) * (1.0 / v.size());
}
double median(const std::vector<double>& v) {
  if (v.size() < 3) return mean(v);
  std::vector<double> copy(v);
  const auto center = copy.begin() + v.size() / 2;
  std::nth_element(copy.begin(), center, copy.end());
  if (v.size() % 2 == 1) return *center;
  const auto below = copy.begin() + v.size() / 2 - 1;
  std::nth_element(copy.begin(), below, copy.end());
  return (*center + *below) / 2.0;
}
double stddev(const std::vector<double>& v) {
  if (v.size() < 2) return v.empty() ? mean(v) : 0.0;
  const double avg_squares = std::inner_product(v.begin(), v.end(), v.begin(), 0.0) * (1.0 / v.size());
  const double m = mean(v);
  const double variance = v.size() / (v.size() - 1.0) * (avg_squares - m * m);
  return variance < 0 ? 0.0 : std::sqrt(variance);  // rounding can make it slightly negative
}
double cv(const std::vector<double>& v) { return v.size() < 2 ? 0.0 : stddev(v) / mean(v); }

struct Statistic {
  const char* name;
  double (*compute)(const std::vector<double>&);
  benchmark::StatisticUnit unit;
};
constexpr Statistic kStatistics[] = {{"mean", mean, benchmark::kTime},
                                     {"median", median, benchmark::kTime},
                                     {"stddev", stddev, benchmark::kTime},
                                     {"cv", cv, benchmark::kPercentage}};

// Google Benchmark's Run() leaves these uninitialised.
BenchmarkRun blank_run() {
  BenchmarkRun run;
  run.family_index = 0;
  run.per_family_instance_index = 0;
  run.repetition_index = 0;
  run.repetitions = 1;
  run.statistics = nullptr;
  run.time_unit = benchmark::kMillisecond;
  return run;
}

}  // namespace

std::string benchmark_name(const Case& c) { return c.name() + "/" + kTimeType; }

BenchmarkRun benchmark_run(const CaseResult& r, std::int64_t family_index) {
  BenchmarkRun run = blank_run();
  run.run_name.function_name = r.spec.name();
  run.family_index = family_index;
  if (!r.benchmarked) {  // never timed: as Google Benchmark writes a run without a time
    run.iterations = 0;
    if (r.status == CaseStatus::kSkipped || r.status == CaseStatus::kFailed || r.status == CaseStatus::kInterrupted)
      mark_not_timed(run, r.status == CaseStatus::kSkipped, r.message);
    return run;
  }
  run.run_name.time_type = kTimeType;
  run.repetition_index = r.repetition_index;
  run.repetitions = r.repetitions;
  // Per iteration, Google Benchmark reports the accumulated time over the iterations: with the
  // samples as iterations, the median sample is what it reports as the real time.
  run.iterations = static_cast<benchmark::IterationCount>(r.stats.count);
  run.real_accumulated_time = r.stats.median_ms * 1e-3 * static_cast<double>(r.stats.count);
  run.cpu_accumulated_time = r.cpu_ms * 1e-3;
  run.counters["GB/s"] = r.gbps;
  run.counters["GFLOP/s"] = r.gflops;
  run.counters["noise%"] = 100.0 * r.stats.rel_stddev;
  run.counters["samples"] = static_cast<double>(r.stats.count);
  if (r.status == CaseStatus::kOk)
    run.report_label = r.noise_target_reached() ? "verified"
                                                : "verified, noise above target (" + to_string(r.stop_reason) + ")";
  else
    mark_not_timed(run, r.status == CaseStatus::kSkipped, r.message);
  return run;
}

bool not_timed_ok(const BenchmarkRun& run) { return is_not_timed(run); }

std::vector<BenchmarkRun> aggregate_runs(const std::vector<BenchmarkRun>& repetitions) {
  std::vector<const BenchmarkRun*> ok;
  for (const BenchmarkRun& run : repetitions)
    if (!is_not_timed(run) && run.iterations > 0) ok.push_back(&run);
  if (ok.size() < 2) return {};
  // The times per iteration (seconds) and the counters of each repetition that ended ok. Google
  // Benchmark's repetitions share one iteration count; these do not (each samples to its own
  // stopping point), so the statistics are taken of the per-iteration times directly.
  std::vector<double> real, cpu;
  std::map<std::string, std::vector<double>> counters;
  for (const BenchmarkRun* run : ok) {
    real.push_back(run->real_accumulated_time / static_cast<double>(run->iterations));
    cpu.push_back(run->cpu_accumulated_time / static_cast<double>(run->iterations));
    for (const auto& [name, counter] : run->counters) counters[name].push_back(counter.value);
  }
  std::string label = repetitions.front().report_label;
  for (const BenchmarkRun& run : repetitions)
    if (run.report_label != label) label.clear();
  std::vector<BenchmarkRun> aggregates;
  for (const Statistic& s : kStatistics) {
    BenchmarkRun a = blank_run();
    const BenchmarkRun& first = repetitions.front();
    a.run_name = first.run_name;
    a.family_index = first.family_index;
    a.per_family_instance_index = first.per_family_instance_index;
    a.run_type = BenchmarkRun::RT_Aggregate;
    a.aggregate_name = s.name;
    a.aggregate_unit = s.unit;
    a.threads = first.threads;
    a.repetitions = first.repetitions;
    a.repetition_index = BenchmarkRun::no_repetition_index;
    a.report_label = label;
    a.iterations = static_cast<benchmark::IterationCount>(repetitions.size());  // as ComputeStats counts them
    // Time statistics are reported per iteration (divided by `iterations` again); a percentage as it is.
    const double scale = s.unit == benchmark::kTime ? static_cast<double>(a.iterations) : 1.0;
    a.real_accumulated_time = s.compute(real) * scale;
    a.cpu_accumulated_time = s.compute(cpu) * scale;
    a.time_unit = first.time_unit;
    for (const auto& [name, values] : counters) a.counters[name] = s.compute(values);
    aggregates.push_back(std::move(a));
  }
  return aggregates;
}

CpuInfo google_benchmark_cpu_info() {
  const benchmark::CPUInfo& info = benchmark::CPUInfo::Get();
  CpuInfo cpu;
  cpu.num_cpus = info.num_cpus;
  cpu.mhz_per_cpu = static_cast<int>(info.cycles_per_second / 1e6);
  cpu.scaling_enabled = info.scaling == benchmark::CPUInfo::ENABLED;
  for (const auto& c : info.caches) cpu.caches.push_back({c.type, c.level, c.size, c.num_sharing});
  cpu.load_avg = info.load_avg;
  return cpu;
}

}  // namespace lb
