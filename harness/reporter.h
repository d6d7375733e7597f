// Google Benchmark's console table of the timed cases (the one its own runs print), fed with the
// runs the harness measured (benchmark_run.h): the header of the machine once, before the first
// row, then a row per repetition and, with repetitions, the aggregates.
#pragma once
#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

#include "harness/case.h"
#include "harness/progress.h"

namespace lb {

class ConsoleTable : public benchmark::ConsoleReporter {
 public:
  // `executable` names the program in the header ("Running build/layerbench"); it must outlive the
  // table (argv[0] does). `name_width`: the width of the name column (name_width() below).
  ConsoleTable(Progress* progress, const char* executable, std::size_t name_width);
  void report(const std::vector<Run>& runs);

 private:
  Progress* progress_;
  std::size_t name_width_;
  bool printed_context_ = false;
};

// The name column's width for `cases`, as Google Benchmark sizes it: the longest benchmark name,
// plus room for an aggregate's suffix ("_stddev") when cases repeat; at least 10.
std::size_t name_width(const std::vector<Case>& cases, int repetitions);

}  // namespace lb
