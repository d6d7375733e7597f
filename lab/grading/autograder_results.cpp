#include "lab/grading/autograder_results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/format_number.h"
#include "common/usage_error.h"
#include "lab/grading/grade_writer.h"

namespace lb::lab {
namespace {

using nlohmann::json;

// A compiler can print pages; each system caps its file (PrairieLearn at 1 MB), and the message
// is repeated in every test. `lab check` prints all of it.
std::string clipped(const std::string& text) {
  constexpr std::size_t kMax = 4000;
  if (text.size() <= kMax) return text;
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return text.substr(0, cut) + "\n... (" + std::to_string(text.size() - cut) +
         " more bytes: `layerbench lab check` prints the whole message)";
}

// The timed sizes' figures, as `lab grade` prints them.
std::vector<std::string> figure_lines(const LabSpec& spec, const Grade& g) {
  std::vector<std::string> lines;
  for (const BenchmarkResult& b : g.benchmarks) {
    if (!b.student || !b.runtime) continue;
    char text[256];
    std::snprintf(text, sizeof text, "%s = %s: yours %.4f ms, ours %.4f ms: %.2f of ours",
                  to_string(spec.workload->size_form()), b.size.c_str(), b.student->median_ms, b.runtime->median_ms,
                  b.speed());
    lines.push_back(text);
  }
  return lines;
}

std::string compile_failure(const Grade& g) { return "the file did not compile:\n" + clipped(g.compiler_message); }

AutograderTest performance_test(const LabSpec& spec, const Grade& g) {
  AutograderTest t;
  t.key = "performance";
  t.name = "performance: speed against ours";
  std::vector<std::string> sizes;
  for (const Shape& shape : spec.benchmark_sizes) sizes.push_back(spec.workload->size_label(shape));
  t.description = "your kernel's time against ours (the " + (spec.baseline ? spec.baseline->name : std::string("baseline")) +
                  " layer's kernel) at " + std::string(to_string(spec.workload->size_form())) + " = " +
                  joined_lines(sizes, ", ") + " on the grading GPU; points by the lab's tiers";
  t.max_score = spec.performance_points;
  t.score = g.performance_points;
  t.passed = g.outcome == GradeOutcome::kGraded && g.performance_points > 0;
  t.error = g.outcome == GradeOutcome::kCouldNotRun;
  const std::vector<std::string> figures = figure_lines(spec, g);
  switch (g.outcome) {
    case GradeOutcome::kDidNotCompile:
      t.message = "not timed: the file did not compile";
      t.output = "not timed: " + compile_failure(g);
      break;
    case GradeOutcome::kCouldNotRun:
      t.message = "not timed: the check could not run";
      t.output = "not timed: " + joined_lines(g.feedback);
      break;
    case GradeOutcome::kCheckFailed:
      t.message = "not timed: " + std::to_string(g.sizes_total - g.sizes_passed) + " of " +
                  std::to_string(g.sizes_total) + " check sizes failed";
      t.output = "not timed: " + joined_lines(g.feedback);
      break;
    case GradeOutcome::kRefused: {
      t.message = "refused: " + g.refusal;
      std::vector<std::string> lines = {t.message};
      lines.insert(lines.end(), figures.begin(), figures.end());
      if (!g.feedback.empty()) lines.insert(lines.end(), g.feedback.begin() + 1, g.feedback.end());  // the first: the refusal
      t.output = joined_lines(lines);
      break;
    }
    case GradeOutcome::kGraded: {
      if (!g.speed)
        t.message = "no performance points: not every benchmark size was timed";
      else
        t.message = format_number("%.2f of the speed of ours", *g.speed) +
                    (g.tier ? format_number(", tier at least %.2f of ours", g.tier->at_least)
                            : std::string(", below every tier")) +
                    ": " + format_number("%g", g.performance_points) + " of " +
                    std::to_string(spec.performance_points) + " points";
      std::vector<std::string> lines = g.feedback;
      lines.insert(lines.end(), figures.begin(), figures.end());
      t.output = joined_lines(lines);
      break;
    }
  }
  return t;
}

}  // namespace

double score_hundredths(double x) { return static_cast<double>(std::llround(x * 100.0)) / 100.0; }

std::string joined_lines(const std::vector<std::string>& lines, const char* separator) {
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "" : separator) + line;
  return text;
}

std::string summary_line(const LabSpec& spec, const Grade& g) {
  return spec.name + ": " + format_number("%g", g.points()) + " / " +
         std::to_string(spec.check_points + spec.performance_points) + " (" + to_string(g.outcome) + ")";
}

std::string visibility_of(const AutograderOptions& o, const std::string& key) {
  const auto found = o.visibility_of.find(key);
  return found == o.visibility_of.end() ? o.visibility : found->second;
}

// The registry's writers that are a grading system's.
const std::vector<const AutograderWriter*>& autograder_formats() {
  static const std::vector<const AutograderWriter*> formats = [] {
    std::vector<const AutograderWriter*> found;
    for (const GradeWriter* w : grade_writers())
      if (const auto* a = dynamic_cast<const AutograderWriter*>(w)) found.push_back(a);
    return found;
  }();
  return formats;
}

const AutograderWriter* find_autograder_format(std::string_view name) {
  for (const AutograderWriter* f : autograder_formats())
    if (f->name() == name) return f;
  return nullptr;
}

std::string autograder_format_names() {
  std::vector<std::string> names;
  for (const AutograderWriter* f : autograder_formats()) names.emplace_back(f->name());
  return joined_lines(names, ", ");
}

const std::vector<std::string>& autograder_visibilities() {
  static const std::vector<std::string> visibilities = {"visible", "hidden", "after_due_date", "after_published"};
  return visibilities;
}

AutograderOptions autograder_options(const LabSpec& spec, const AutograderRequest& request, std::size_t submissions) {
  AutograderOptions o;
  const bool visibility_given = !request.visibility.empty() || !request.visibility_of.empty();
  if (request.format.empty()) {
    if (!request.results_path.empty())
      throw UsageError("--results " + one_line(request.results_path) + ": needs --format (" + autograder_format_names() + ")");
    if (visibility_given) throw UsageError("--visibility and --visibility-of need --format gradescope");
    return o;
  }
  o.format = find_autograder_format(request.format);
  if (!o.format)
    throw UsageError("--format '" + one_line(request.format) + "': not a grading system's format (" +
                     autograder_format_names() + ")");
  const std::string flag = "--format " + std::string(o.format->name());
  if (submissions != 1)
    throw UsageError(flag + ": one submission per run (a grading system grades one at a time); got " +
                     std::to_string(submissions) + " files");
  if (request.results_path.empty())
    throw UsageError(flag + " needs --results PATH (" + std::string(o.format->system()) + " reads " +
                     std::string(o.format->reads_from()) + ")");
  if (visibility_given && !o.format->has_visibility())
    throw UsageError("--visibility" + std::string(request.visibility.empty() ? "-of" : "") + ": " +
                     std::string(o.format->system()) + "'s results have no per-test visibility (only gradescope's "
                     "have); drop --visibility and --visibility-of");
  const auto require_visibility = [](const std::string& what, const std::string& value) {
    const auto& known = autograder_visibilities();
    if (std::find(known.begin(), known.end(), value) == known.end())
      throw UsageError(what + ": '" + one_line(value) + "' is not a visibility (" + joined_lines(known, ", ") + ")");
  };
  if (!request.visibility.empty()) {
    require_visibility("--visibility", request.visibility);
    o.visibility = request.visibility;
  }
  for (const std::string& item : request.visibility_of) {
    const std::string what = "--visibility-of '" + one_line(item) + "'";
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw UsageError(what + ": expected TEST=VISIBILITY (e.g. 2^24=hidden, performance=after_due_date)");
    const std::string test = item.substr(0, eq), visibility = item.substr(eq + 1);
    const auto& sizes = spec.check_size_texts;
    if (test != "performance" && std::find(sizes.begin(), sizes.end(), test) == sizes.end())
      throw UsageError(what + ": '" + one_line(test) + "' is neither a check size of " + spec.name + " (" +
                       joined_lines(sizes, ", ") + ") nor 'performance'");
    require_visibility(what, visibility);
    if (!o.visibility_of.emplace(test, visibility).second)
      throw UsageError(what + ": --visibility-of names '" + one_line(test) + "' twice");
  }
  return o;
}

std::vector<AutograderTest> autograder_tests(const LabSpec& spec, const Grade& g) {
  // Every check size, in lab.json's order: one the grade does not know failed, not run.
  std::vector<SizeResult> sizes;
  for (std::size_t i = 0; i < spec.check_size_texts.size(); ++i) {
    const auto found = std::find_if(g.sizes.begin(), g.sizes.end(),
                                    [&](const SizeResult& r) { return r.size == spec.check_size_texts[i]; });
    sizes.push_back(found != g.sizes.end() ? *found
                                           : SizeResult{spec.check_size_texts[i], check_size_label(spec, i), false, "not run"});
  }
  // Each size's maximum is its fixed share of the check's points (check_shares: the same in every
  // submission, passed or not, as Gradescope and PrairieLearn take a test's maximum for its weight);
  // a size that passed scores it whole, so the scores add up to the grade's check points.
  const std::vector<long long> shares = check_shares(spec);
  std::vector<AutograderTest> tests;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const SizeResult& r = sizes[i];
    AutograderTest t;
    t.key = r.size;
    t.name = "check: " + r.label;
    t.description = "your kernel's output at " + r.label + " against the double-precision reference";
    t.passed = r.passed;
    t.error = g.outcome == GradeOutcome::kCouldNotRun;
    t.max_score = static_cast<double>(i < shares.size() ? shares[i] : 0) / 100.0;
    t.score = r.passed ? t.max_score : 0.0;
    if (g.outcome == GradeOutcome::kDidNotCompile) {
      t.message = "failed: the file did not compile";
      t.output = "FAIL  " + r.label + ": " + compile_failure(g);
    } else {
      t.message = r.passed ? "passed" : r.feedback;
      t.output = (r.passed ? "PASS  " : "FAIL  ") + r.label + (r.passed ? "" : ": " + r.feedback);
    }
    tests.push_back(std::move(t));
  }
  tests.push_back(performance_test(spec, g));
  return tests;
}

nlohmann::json autograder_results(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                                  const AutograderOptions& options) {
  if (!options.format) return nullptr;
  return options.format->document(spec, grade, ceiling, options);
}

}  // namespace lb::lab
