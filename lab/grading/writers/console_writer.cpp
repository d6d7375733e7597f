// What `lab grade` prints on the console: each grade as it is made ("GRADE file: 100 / 100 (check
// 60 / 60, performance 40 / 40)", the timed sizes, the feedback), and after a batch one row per
// submission.
#include <cstdarg>
#include <cstdio>

#include "common/format_number.h"
#include "lab/grading/grade_writer.h"

namespace lb::lab {
namespace {

// printf into a string, whatever its length.
std::string printed(const char* format, ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(length > 0 ? static_cast<std::size_t>(length) : 0, '\0');
  if (length > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  return text;
}

}  // namespace

std::string ConsoleWriter::grade_lines(const LabSpec& spec, const Grade& g) {
  std::string text = printed("GRADE %s: %g / %d  (check %g / %d", g.file.c_str(), g.points(),
                             spec.check_points + spec.performance_points, g.check_points, spec.check_points);
  if (g.outcome == GradeOutcome::kGraded || g.outcome == GradeOutcome::kRefused)
    text += printed(", performance %g / %d%s", g.performance_points, spec.performance_points,
                    g.outcome == GradeOutcome::kRefused ? ": refused" : "");
  text += ")\n";
  for (const BenchmarkResult& b : g.benchmarks)
    if (b.student && b.runtime)
      text += printed("  n = %s: yours %.4f ms, ours %.4f ms: %.2f of ours%s\n", b.size.c_str(), b.student->median_ms,
                      b.runtime->median_ms, b.speed(),
                      // What each timed sample cost the grade besides the kernel (lab/child/fresh_inputs.h).
                      b.handover_ms > 0
                          ? printed(" (fresh inputs: %.3f ms, verification: %.2f ms per sample, outside the timed region; "
                                    "the hand-over of a and b: %.2f ms, inside both trips' times)",
                                    b.input_reset_ms, b.sample_verify_ms, b.handover_ms).c_str()
                      : b.sample_verify_ms > 0
                          ? printed(" (fresh inputs: %.3f ms, verification: %.2f ms per sample, outside the timed region)",
                                    b.input_reset_ms, b.sample_verify_ms).c_str()
                      : b.input_reset_ms > 0
                          ? format_number(" (fresh inputs: %.3f ms per sample, outside the timed region)",
                                          b.input_reset_ms).c_str()
                          : "");
  for (const std::string& line : g.feedback) text += "  " + line + "\n";
  if (!g.isolation.empty()) text += "  isolation: " + g.isolation + "\n";
  return text;
}

std::string ConsoleWriter::summary(const std::vector<Grade>& grades) {
  std::string text = printed("\n%-40s %8s  %s\n", "submission", "points", "outcome");
  for (const Grade& g : grades) text += printed("%-40s %8g  %s\n", g.file.c_str(), g.points(), to_string(g.outcome));
  return text;
}

std::string ConsoleWriter::render(const GradeReport& r) const {
  std::string text;
  for (const Grade& g : r.grades) text += grade_lines(r.spec, g);
  if (r.grades.size() > 1) text += summary(r.grades);
  return text;
}

}  // namespace lb::lab
