// The registry of grade writers (lab/grading/grade_writer.h): adding a format is its writer's file
// in this folder and one line here. A grading system's format is chosen here too: --format's
// request checked against the registry and the lab (autograder_options).
#include "lab/grading/grade_writer.h"

#include <algorithm>

#include "common/usage_error.h"

namespace lb::lab {

const std::vector<const GradeWriter*>& grade_writers() {
  static const ConsoleWriter console;
  static const JsonWriter json;
  static const CsvWriter csv;
  static const MarkdownWriter markdown;
  static const GradescopeWriter gradescope;
  static const PrairieLearnWriter prairielearn;
  static const GithubClassroomWriter github_classroom;
  static const std::vector<const GradeWriter*> writers = {&console,    &json,         &csv,
                                                          &markdown,   &gradescope,   &prairielearn,
                                                          &github_classroom};
  return writers;
}

const GradeWriter* find_grade_writer(std::string_view name) {
  for (const GradeWriter* w : grade_writers())
    if (w->name() == name) return w;
  return nullptr;
}

// One submission's results file: the last grade of the batch (a grading system grades one at a time).
std::string AutograderWriter::render(const GradeReport& r) const {
  if (r.grades.empty()) return "";
  return document(r.spec, r.grades.back(), r.ceiling, r.autograder)
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
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

nlohmann::json autograder_results(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                                  const AutograderOptions& options) {
  if (!options.format) return nullptr;
  return options.format->document(spec, grade, ceiling, options);
}

}  // namespace lb::lab
