// Google Benchmark's flags that keep their meaning in `run`: --benchmark_filter=REGEX (run only the
// cases whose benchmark name it finds, as Google Benchmark's filter does) and
// --benchmark_repetitions=N (measure each case N times). The harness applies both itself: no
// benchmark is registered with the library (benchmark_run.h), so its other flags would mean
// nothing, and each is refused with a line saying what to use instead.
#pragma once
#include <string>
#include <vector>

#include "harness/plan.h"

namespace lb {

struct BenchmarkFlags {
  std::string filter;   // as given; empty (or "all"): every case. A leading '-' keeps those it does not find
  int repetitions = 1;
};

// The flags as typed (`--benchmark_name=value`). UsageError, one line naming the flag, for a
// malformed value (a repetition count that is not a whole number >= 1, a filter that is not an
// extended regular expression), a flag of Google Benchmark's that means nothing here, or a
// `--benchmark_` word that is none of its flags (an unknown option, as any other).
BenchmarkFlags parse_benchmark_flags(const std::vector<std::string>& flags);

// Whether the filter finds `benchmark_name` (benchmark_run.h's name of the case): std::regex_search
// with an extended expression, negated by a leading '-', as Google Benchmark matches it.
bool filter_matches(const std::string& filter, const std::string& benchmark_name);

// Drops from `plan` the cases the filter does not find, and the layers and workloads of none of the
// cases it keeps (so that a filter that keeps only CPU cases opens no GPU). UsageError when it
// leaves none of a plan that had some.
void keep_filtered_cases(SuitePlan& plan, const std::string& filter);

}  // namespace lb
