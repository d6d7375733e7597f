// Google Benchmark's console table, printed once per suite, and the runs it reports kept for the
// results file.
#pragma once
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/progress.h"

namespace lb {

// How the Google Benchmark library in use was built, "debug" or "release", as the library itself
// says (its JSON reporter writes it from its own NDEBUG); "unknown" if it does not say. GPU cases
// are timed with CUDA events (manual time), so it changes none of their figures.
std::string google_benchmark_build_type();

class SuiteReporter : public benchmark::ConsoleReporter {
 public:
  explicit SuiteReporter(Progress* progress);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void collect_into(std::vector<Run>* runs) { target_ = runs; }
  // Google Benchmark's CPU information (num_cpus, mhz_per_cpu, caches, ...), for the context.
  const nlohmann::json& context_json() const { return context_; }

 private:
  bool printed_context_ = false;
  nlohmann::json context_;
  std::vector<Run>* target_ = nullptr;
  Progress* progress_;
};

}  // namespace lb
