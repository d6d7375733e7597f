// `lab grade --csv`: one row per submission, the feedback last (quoted: it has commas).
#include <sstream>

#include "common/format_number.h"
#include "lab/grading/grade_writer.h"

namespace lb::lab {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string CsvWriter::header() {
  return "file,lab,outcome,points,max_points,sizes_passed,sizes,check_points,speed_vs_runtime,fraction_of_ceiling,"
         "tier_at_least,performance_points,feedback\n";
}

std::string CsvWriter::row(const LabSpec& spec, const Grade& g) {
  auto number = [](const std::optional<double>& v) { return v ? format_number("%.4f", *v) : std::string(); };
  std::string feedback;
  for (const std::string& line : g.feedback) feedback += (feedback.empty() ? "" : " | ") + line;
  std::ostringstream row;
  row << csv_field(g.file) << "," << spec.name << "," << to_string(g.outcome) << "," << format_number("%g", g.points())
      << "," << spec.check_points + spec.performance_points << "," << g.sizes_passed << "," << g.sizes_total << ","
      << format_number("%g", g.check_points) << "," << number(g.speed) << "," << number(g.ceiling_fraction) << ","
      << (g.tier ? format_number("%g", g.tier->at_least) : std::string()) << ","
      << format_number("%g", g.performance_points) << "," << csv_field(feedback) << "\n";
  return row.str();
}

std::string CsvWriter::render(const GradeReport& r) const {
  std::string csv = header();
  for (const Grade& g : r.grades) csv += row(r.spec, g);
  return csv;
}

}  // namespace lb::lab
