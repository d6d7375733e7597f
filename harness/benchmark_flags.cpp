#include "harness/benchmark_flags.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <set>

#include "common/usage_error.h"
#include "harness/benchmark_run.h"

namespace lb {
namespace {

bool is_whole_number_at_least_1(const std::string& value) {
  int n = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
  return error == std::errc() && end == value.data() + value.size() && n >= 1;
}

// Google Benchmark's other flags (1.7 to 1.9), and what layerbench does instead of each: the
// harness runs its own measurement loop and writes its own results, so none would change a thing.
const std::map<std::string, std::string>& refused_flags() {
  static const std::map<std::string, std::string> refused = {
      {"--benchmark_list_tests", "`layerbench list` shows the workloads, layers and sizes"},
      {"--benchmark_min_time", "the sampling stops by its own rule (--min-time, --max-time, --min-samples, --noise)"},
      {"--benchmark_min_warmup_time", "each case is warmed up by one run before its verified run"},
      {"--benchmark_enable_random_interleaving", "the cases run in the plan's order, one after another"},
      {"--benchmark_report_aggregates_only", "the results keep every repetition (the reports fold them)"},
      {"--benchmark_display_aggregates_only", "the console shows every repetition and the aggregates"},
      {"--benchmark_format", "the console shows Google Benchmark's table; -o writes the results as JSON"},
      {"--benchmark_out", "-o/--out writes the results (Google Benchmark's JSON layout)"},
      {"--benchmark_out_format", "-o writes JSON; `layerbench csv` writes CSV from it"},
      {"--benchmark_color", "the table is coloured when standard output is a terminal"},
      {"--benchmark_counters_tabular", "the table's counters are always in columns"},
      {"--benchmark_perf_counters", "no performance counters are read"},
      {"--benchmark_context", "the results' context is layerbench's own"},
      {"--benchmark_time_unit", "times are in milliseconds"},
      {"--benchmark_dry_run", "`run --check` runs each case once, verified and untimed"},
  };
  return refused;
}

}  // namespace

BenchmarkFlags parse_benchmark_flags(const std::vector<std::string>& flags) {
  BenchmarkFlags parsed;
  for (const std::string& flag : flags) {
    const auto equals = flag.find('=');
    const std::string name = flag.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : flag.substr(equals + 1);
    const auto bad = [&](const std::string& why) { throw UsageError("'" + one_line(flag) + "': " + why); };
    if (name == "--benchmark_filter") {
      if (equals == std::string::npos) bad("expected --benchmark_filter=REGEX");
      try {
        std::regex(value.starts_with('-') ? value.substr(1) : value, std::regex::extended);
      } catch (const std::regex_error& e) {
        bad(std::string("not a regular expression (") + e.what() + ")");
      }
      parsed.filter = value;
    } else if (name == "--benchmark_repetitions") {
      if (!is_whole_number_at_least_1(value)) bad("the repetitions must be a whole number, at least 1");
      parsed.repetitions = std::stoi(value);
    } else if (const auto refused = refused_flags().find(name); refused != refused_flags().end()) {
      throw UsageError("'" + one_line(flag) + "' does not apply: layerbench times each case itself; " +
                       refused->second);
    } else {
      throw UsageError("unknown option '" + one_line(flag) + "' (see layerbench run --help)");
    }
  }
  return parsed;
}

bool filter_matches(const std::string& filter, const std::string& benchmark_name) {
  if (filter.empty() || filter == "all") return true;  // Google Benchmark's "every benchmark"
  const bool negative = filter.starts_with('-');
  const std::regex re(negative ? filter.substr(1) : filter, std::regex::extended);
  return std::regex_search(benchmark_name, re) != negative;
}

void keep_filtered_cases(SuitePlan& plan, const std::string& filter) {
  if (filter.empty() || plan.cases.empty()) return;
  std::vector<Case> kept;
  for (const Case& c : plan.cases)
    if (filter_matches(filter, benchmark_name(c))) kept.push_back(c);
  if (kept.empty()) {
    const std::string flag = "'--benchmark_filter=" + one_line(filter) + "'";
    const std::string first = benchmark_name(plan.cases.front());
    throw UsageError(plan.cases.size() == 1
                         ? flag + " matches no case of this run (its one case: " + first + ")"
                         : flag + " matches none of this run's " + std::to_string(plan.cases.size()) +
                               " cases (named like " + first + ")");
  }
  // The run is the cases kept: their layers and workloads are the ones it records (and a GPU is
  // opened only for a GPU case).
  std::set<const Layer*> layers;
  std::set<const Workload*> workloads;
  for (const Case& c : kept) layers.insert(c.layer), workloads.insert(c.workload);
  std::erase_if(plan.layers, [&](const Layer* l) { return !layers.count(l); });
  std::erase_if(plan.workloads, [&](const Workload* w) { return !workloads.count(w); });
  plan.cases = std::move(kept);
}

}  // namespace lb
