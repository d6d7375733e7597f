// `lab grade --markdown`: a report a person reads: the run in a line, then a section per submission
// (its points by part, the timed sizes' table, its feedback).
#include <cmath>
#include <sstream>

#include "common/format_number.h"
#include "harness/device_peaks.h"
#include "lab/grading/grade_writer.h"

namespace lb::lab {
namespace {

bool figure_is_flops(const LabSpec& spec) { return spec.workload->figure() == Figure::kCompute; }
double rate_of(const LabSpec& spec, const Timing& t) { return figure_is_flops(spec) ? t.gflops : t.gbps; }
const char* figure_unit(const LabSpec& spec) { return figure_is_flops(spec) ? "GFLOP/s" : "GB/s"; }

}  // namespace

std::string MarkdownWriter::section(const LabSpec& spec, const Grade& g, const Ceiling& ceiling) {
  std::ostringstream md;
  md << "## " << g.file << "\n\n";
  md << "**" << format_number("%g", g.points()) << " / " << spec.check_points + spec.performance_points << "** ("
     << to_string(g.outcome) << ")\n\n";
  md << "| part | result | points |\n|---|---|---|\n";
  md << "| check | " << g.sizes_passed << " of " << g.sizes_total << " sizes passed | "
     << format_number("%g", g.check_points) << " / " << spec.check_points << " |\n";
  md << "| performance | "
     << (!g.refusal.empty() ? "**refused**: " + g.refusal
         : g.speed          ? format_number("%.2f", *g.speed) + " of ours" +
                         (g.tier ? format_number(", tier at least %.2f of ours", g.tier->at_least)
                                 : std::string(", below every tier"))
                   : std::string("not graded"))
     << " | " << format_number("%g", g.performance_points) << " / " << spec.performance_points << " |\n\n";
  bool any_timed = false, any_limit = false;
  for (const BenchmarkResult& b : g.benchmarks) {
    any_timed = any_timed || (b.student && b.runtime);
    any_limit = any_limit || (b.student && b.runtime && b.limit.checked());
  }
  if (any_timed) {
    md << "| size | yours ms | ours ms | yours " << figure_unit(spec) << " | ours " << figure_unit(spec) << " | speed";
    if (ceiling.value > 0) md << " | yours / " << ceiling.what;
    if (any_limit) md << " | most the GPU allows " << figure_unit(spec);
    md << " |\n|---|---|---|---|---|---|" << (ceiling.value > 0 ? "---|" : "") << (any_limit ? "---|" : "") << "\n";
    for (const BenchmarkResult& b : g.benchmarks) {
      if (!b.student || !b.runtime) continue;
      md << "| " << b.size << " | " << format_number("%.4f", b.student->median_ms) << " | "
         << format_number("%.4f", b.runtime->median_ms) << " | " << format_number("%.0f", rate_of(spec, *b.student))
         << " | " << format_number("%.0f", rate_of(spec, *b.runtime)) << " | " << format_number("%.2f", b.speed());
      if (ceiling.value > 0) md << " | " << format_number("%.0f%%", 100.0 * rate_of(spec, *b.student) / ceiling.value);
      if (any_limit) md << " | " << (b.limit.checked() ? format_number("%.0f", b.limit.limit) : std::string("-"));
      md << " |\n";
    }
    md << "\n";
  }
  for (const std::string& line : g.feedback) md << "- " << line << "\n";
  return md.str();
}

std::string MarkdownWriter::render(const GradeReport& r) const {
  const LabSpec& spec = r.spec;
  const Ceiling& ceiling = r.ceiling;
  std::string md = "# " + spec.name + ": " + spec.title + "\n\nGraded " + r.graded_at;
  if (r.gpu) md += " on " + *r.gpu;
  if (ceiling.value > 0)
    md += "; the GPU's " + ceiling.what + ", measured in the same run: " + std::to_string(std::lround(ceiling.value)) +
          " " + ceiling.unit;
  if (const std::optional<DevicePeaks> peaks = peaks_from_json(r.peaks)) {
    const bool compute = figure_is_flops(spec);
    const double peak = compute ? peaks->fp32_gflops : peaks->dram_gbps;
    if (peak > 0)
      md += "; a kernel faster than the GPU's theoretical peak (" +
            (compute ? "fp32 " + std::to_string(std::lround(peak)) + " GFLOP/s"
                     : "DRAM " + std::to_string(std::lround(peak)) +
                           " GB/s, for the part of the working set the L2 cannot hold") +
            ") is refused: it skipped work";
  }
  md += ".\n\n";
  if (!r.isolation.empty()) md += "Isolation: " + r.isolation + ".\n\n";
  for (const Grade& g : r.grades) md += section(spec, g, ceiling) + "\n";
  return md;
}

}  // namespace lb::lab
