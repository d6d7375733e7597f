// `lab grade --format`: one submission's grade as the results file a grading system reads
// (Gradescope's results.json, PrairieLearn's external grader results.json, a GitHub Classroom
// runner's result object). What the formats share: the request checked, the tests every format
// lists; each format's file is its writer's (grade_writer.h, lab/grading/writers/). Pure functions
// from the spec, the grade and the options, tested without a GPU (tests/test_lab_autograder.cpp);
// lab/grading/schemas/ holds each format's published schema.
//
// Every format gets the same tests: one per check size ("check: n = 257", its share of the
// check's points) and one for the performance part (the performance points earned).
#pragma once
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "lab/grading/grading.h"
#include "lab/spec/lab_spec.h"

namespace lb::lab {

// The flags as typed (lab_grade.h's GradeOptions carries them); empty: not given.
struct AutograderRequest {
  std::string format, results_path, visibility;
  std::vector<std::string> visibility_of;  // "TEST=VISIBILITY" each
};

class AutograderWriter;  // lab/grading/grade_writer.h: one per format

// The request, checked against the lab.
struct AutograderOptions {
  const AutograderWriter* format = nullptr;
  std::string visibility = "visible";                 // every test's, unless named below
  std::map<std::string, std::string> visibility_of;   // a check size as lab.json writes it, or "performance"
  double execution_time_s = -1;                       // the whole grade's wall time; < 0: not known
};

// One test, as every format has it.
struct AutograderTest {
  std::string key;          // what --visibility-of names: the check size as lab.json writes it, or "performance"
  std::string name;         // "check: n = 257", "performance: speed against ours"
  std::string description;  // what it tests, one line
  double score = 0, max_score = 0;
  bool passed = false;
  bool error = false;       // the grader could not tell (the check's output could not be read)
  std::string message;      // one line
  std::string output;       // everything the student should read, lines
};

// The grading systems' writers (grade_writer.h's registry), in --help's order.
const std::vector<const AutograderWriter*>& autograder_formats();
const AutograderWriter* find_autograder_format(std::string_view name);
std::string autograder_format_names();  // "gradescope, prairielearn, github-classroom"

// The visibilities Gradescope knows, "visible" first.
const std::vector<std::string>& autograder_visibilities();

// Checks the request before anything runs: UsageError, one line naming the bad value, for an
// unknown format or visibility, a TEST that is neither a check size nor "performance", visibility
// given for a format without it, --format without --results (or the reverse), or more than one
// submission. Without --format (and none of the others) the options' format is nullptr.
AutograderOptions autograder_options(const LabSpec& spec, const AutograderRequest& request, std::size_t submissions);

// The tests of `grade`, check sizes in lab.json's order, then performance. The check's points are
// the grade's (rounded to one decimal), shared in hundredths evenly over the sizes that passed; the
// rest of the check's maximum over those that failed: each test that passed has its full score,
// and the scores add up to the grade's points exactly.
std::vector<AutograderTest> autograder_tests(const LabSpec& spec, const Grade& grade);

// The results file's JSON in options.format; null without a format.
nlohmann::json autograder_results(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                                  const AutograderOptions& options);

// What the formats' writers share (lab/grading/writers/): a score in whole hundredths, so that the
// numbers read as they add up ("8.57", not 8.5700000001); lines joined; the grade in one line
// ("01-vector-add: 100 / 100 (graded)"); a test's visibility.
double score_hundredths(double x);
std::string joined_lines(const std::vector<std::string>& lines, const char* separator = "\n");
std::string summary_line(const LabSpec& spec, const Grade& grade);
std::string visibility_of(const AutograderOptions& options, const std::string& key);

}  // namespace lb::lab
