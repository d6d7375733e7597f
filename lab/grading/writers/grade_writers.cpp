// The registry of grade writers (lab/grading/grade_writer.h): adding a format is its writer's file
// in this folder and one line here.
#include "lab/grading/grade_writer.h"

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

}  // namespace lb::lab
