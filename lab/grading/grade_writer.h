// How `lab grade` writes its grades out: one writer per format, each in its own file under
// lab/grading/writers/, behind one small interface (as Google Benchmark's reporters:
// BenchmarkReporter, with ConsoleReporter, JSONReporter and CSVReporter each in its own .cpp).
// A writer reads the typed grades (grading.h) and the run's context, and computes no point: the
// grade is grading.cpp's alone. Writers are chosen once, by format name, from the registry in
// writers/grade_writers.cpp; adding a format is one file there and one line in the registry.
//
//   json, csv, markdown                 every submission graded so far (--json, --csv, --markdown)
//   gradescope, prairielearn,           one submission's results file for a grading system
//   github-classroom                    (--format NAME --results PATH; autograder_results.h)
//
// The console's lines (the grade as `lab grade` prints it) are writers/console_writer.cpp's.
#pragma once
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lab/grading/autograder_results.h"
#include "lab/grading/grading.h"
#include "lab/spec/lab_spec.h"

namespace lb::lab {

// What every writer reads (Google Benchmark's ReportContext and runs together): the lab, the run,
// and every grade so far, in the order graded.
struct GradeReport {
  const LabSpec& spec;
  std::string graded_at;           // ISO 8601 UTC, when the batch started
  std::optional<std::string> gpu;  // the timing child's GPU, when one reported
  nlohmann::json peaks;            // the timing child's peaks (harness/device_peaks.h); null when none
  Ceiling ceiling;                 // the lab's ceiling on that GPU (Runner::ceiling)
  std::vector<Grade> grades;
  AutograderOptions autograder;    // a grading system's format: visibilities, the grade's wall time
  std::string isolation = {};      // how the student's code was held (student_sandbox.h's description)
};

class GradeWriter {
 public:
  virtual ~GradeWriter() = default;
  virtual std::string_view name() const = 0;  // the format's name: "json", "gradescope"
  // The whole file: rewritten after every submission, so that an interrupted batch keeps what it
  // measured.
  virtual std::string render(const GradeReport& report) const = 0;
};

// A grading system's results file: one submission (the report's last grade), one JSON document.
class AutograderWriter : public GradeWriter {
 public:
  virtual std::string_view system() const = 0;      // "Gradescope"
  virtual std::string_view reads_from() const = 0;  // where the system expects the file
  virtual bool has_visibility() const { return false; }  // per-test visibility (Gradescope only)
  virtual nlohmann::json document(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                                  const AutograderOptions& options) const = 0;
  std::string render(const GradeReport& report) const override;
};

// --- the formats (writers/<name>_writer.cpp) --------------------------------------------------------

class JsonWriter final : public GradeWriter {
 public:
  std::string_view name() const override { return "json"; }
  std::string render(const GradeReport& report) const override;
  static nlohmann::json submission(const LabSpec& spec, const Grade& grade);  // one grade's object
};

class CsvWriter final : public GradeWriter {
 public:
  std::string_view name() const override { return "csv"; }
  std::string render(const GradeReport& report) const override;
  static std::string header();
  static std::string row(const LabSpec& spec, const Grade& grade);
};

class MarkdownWriter final : public GradeWriter {
 public:
  std::string_view name() const override { return "markdown"; }
  std::string render(const GradeReport& report) const override;
  static std::string section(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling);  // one grade's
};

class GradescopeWriter final : public AutograderWriter {
 public:
  std::string_view name() const override { return "gradescope"; }
  std::string_view system() const override { return "Gradescope"; }
  std::string_view reads_from() const override { return "/autograder/results/results.json"; }
  bool has_visibility() const override { return true; }
  nlohmann::json document(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                          const AutograderOptions& options) const override;
};

class PrairieLearnWriter final : public AutograderWriter {
 public:
  std::string_view name() const override { return "prairielearn"; }
  std::string_view system() const override { return "PrairieLearn"; }
  std::string_view reads_from() const override { return "/grade/results/results.json"; }
  nlohmann::json document(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                          const AutograderOptions& options) const override;
};

class GithubClassroomWriter final : public AutograderWriter {
 public:
  std::string_view name() const override { return "github-classroom"; }
  std::string_view system() const override { return "GitHub Classroom"; }
  std::string_view reads_from() const override { return "the grader step's output `result`, base64-encoded"; }
  nlohmann::json document(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                          const AutograderOptions& options) const override;
};

// The console: what `lab grade` prints as each submission is graded, and the table after a batch.
class ConsoleWriter final : public GradeWriter {
 public:
  std::string_view name() const override { return "console"; }
  // Every grade's lines, then (more than one) the table.
  std::string render(const GradeReport& report) const override;
  static std::string grade_lines(const LabSpec& spec, const Grade& grade);  // "GRADE file: 100 / 100 ..."
  static std::string summary(const std::vector<Grade>& grades);            // one row per submission
};

// --- the registry (writers/grade_writers.cpp) ----------------------------------------------------------

// Every writer, in --help's order; nullptr for a name none has.
const std::vector<const GradeWriter*>& grade_writers();
const GradeWriter* find_grade_writer(std::string_view name);

// The grading systems' writers, in --help's order.
const std::vector<const AutograderWriter*>& autograder_formats();
const AutograderWriter* find_autograder_format(std::string_view name);
std::string autograder_format_names();  // "gradescope, prairielearn, github-classroom"

// Checks the request before anything runs: UsageError, one line naming the bad value, for an
// unknown format or visibility, a TEST that is neither a check size nor "performance", visibility
// given for a format without it, --format without --results (or the reverse), or more than one
// submission. Without --format (and none of the others) the options' format is nullptr.
AutograderOptions autograder_options(const LabSpec& spec, const AutograderRequest& request, std::size_t submissions);

// The results file's JSON in options.format; null without a format.
nlohmann::json autograder_results(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                                  const AutograderOptions& options);

}  // namespace lb::lab
