#include "harness/reporter.h"

#include <unistd.h>

#include <regex>
#include <sstream>

namespace lb {

std::string google_benchmark_build_type() {
  std::ostringstream text;
  benchmark::JSONReporter json;
  json.SetOutputStream(&text);
  json.SetErrorStream(&text);
  json.ReportContext(benchmark::BenchmarkReporter::Context());
  std::smatch found;
  const std::string written = text.str();
  return std::regex_search(written, found, std::regex("\"library_build_type\": \"(\\w+)\"")) ? found[1].str()
                                                                                                : "unknown";
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

}  // namespace lb
