// Google Benchmark in the role it is good at: the harness measures each case itself (measure.h),
// and describes the measurement as Google Benchmark's own record of a run, a
// benchmark::BenchmarkReporter::Run, which its console table prints (reporter.h) and whose fields
// the results file writes under Google Benchmark's names (results_json.h), so that its
// tools/compare.py reads the file. No benchmark is registered and none is run by the library.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/records.h"

namespace lb {

using BenchmarkRun = benchmark::BenchmarkReporter::Run;

// A timed case is a manual-time benchmark: "<workload>/<layer>/<size>/manual_time". The name
// --benchmark_filter is matched against.
std::string benchmark_name(const Case& c);

// The case as Google Benchmark's record of one run (of one repetition), `family_index` its place in
// the run. A benchmarked case (CaseResult::benchmarked): iterations = its kept samples, real time
// per iteration = the median sample, CPU time per iteration = this thread's CPU time while sampling
// over the samples, in ms; counters GB/s, GFLOP/s, noise%, samples; the label says whether the
// noise target was reached. A case that did not end ok carries Google Benchmark's skip or error
// (its samples, if any, kept). A case never timed: the bare name, 0 iterations, no time.
BenchmarkRun benchmark_run(const CaseResult& r, std::int64_t family_index);

// Google Benchmark's aggregates over the repetitions of one case (mean, median, stddev of the
// times and counters; cv, a fraction), computed as its ComputeStats does: none unless at least two
// repetitions ended ok, those alone counted.
std::vector<BenchmarkRun> aggregate_runs(const std::vector<BenchmarkRun>& repetitions);

// Whether `run` is an error or a skip (Google Benchmark 1.7's error_occurred; 1.8's skipped).
bool not_timed_ok(const BenchmarkRun& run);

// This machine's CPU as Google Benchmark describes it (benchmark::CPUInfo::Get()).
CpuInfo google_benchmark_cpu_info();

}  // namespace lb
