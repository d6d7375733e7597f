#include "harness/reporter.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "harness/benchmark_run.h"

namespace lb {

ConsoleTable::ConsoleTable(Progress* progress, const char* executable, std::size_t name_width)
    : benchmark::ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular),
      progress_(progress),
      name_width_(name_width) {
  // What benchmark::Initialize would set from argv[0]; the header prints it.
  benchmark::BenchmarkReporter::Context::executable_name = executable;
}

void ConsoleTable::report(const std::vector<Run>& runs) {
  if (runs.empty()) return;
  progress_->clear();
  if (!printed_context_) {  // the machine's header (date, CPU, caches, load), on stderr, once
    printed_context_ = true;
    benchmark::BenchmarkReporter::Context context;
    context.name_field_width = name_width_;
    ReportContext(context);
  }
  ReportRuns(runs);
  std::fflush(stdout);
}

std::size_t name_width(const std::vector<Case>& cases, int repetitions) {
  std::size_t width = 10;
  for (const Case& c : cases) width = std::max(width, benchmark_name(c).size());
  if (repetitions > 1) width += 1 + std::strlen("stddev");  // "_stddev", the longest aggregate suffix
  return width;
}

}  // namespace lb
