// Runs cases under Google Benchmark: setup, warm-up and the verified run once per case, then
// samples timed by the layer's clock and handed to Google Benchmark as manual time.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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
SampleStats summarize(std::vector<double> samples_ms);

struct CaseResult {
  Case spec;
  std::string status = "not run";  // ok | failed | skipped | not run (filtered out)
  std::string message;             // why, when not ok
  std::uint64_t seed = 0;
  bool verified = false;
  Verdict verdict;
  SampleStats stats;
  double gbps = 0, gflops = 0;
  double allocate_ms = 0;     // allocate(): device memory and one-time work
  double first_run_ms = 0;    // the first run(), host clock, launch to completion: lazy loading included
  double end_to_end_ms = 0;   // the verified run: upload + run + download, host clock
  std::vector<benchmark::BenchmarkReporter::Run> runs;  // what Google Benchmark reported
};

struct SuiteOptions {
  std::uint64_t seed = 0;  // every case's inputs derive from this and the case's name
};

// Console reporter that prints Google Benchmark's table once per suite and keeps every run.
class SuiteReporter : public benchmark::ConsoleReporter {
 public:
  SuiteReporter();
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void collect_into(std::vector<Run>* runs) { target_ = runs; }
  const nlohmann::json& context_json() const { return context_; }

 private:
  bool printed_context_ = false;
  nlohmann::json context_;
  std::vector<Run>* target_ = nullptr;
};

// Runs every case in order, one Google Benchmark registration at a time so that only one case's
// buffers are alive at once. Progress goes to stderr.
std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const SuiteOptions& options,
                                  SuiteReporter& reporter);

}  // namespace lb
