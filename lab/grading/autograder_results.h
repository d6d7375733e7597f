// `lab grade --format`: one submission's grade as the results file a grading system reads
// (Gradescope's results.json, PrairieLearn's external grader results.json, a GitHub Classroom
// runner's result object). Pure functions from the spec, the grade and the options to JSON, tested
// without a GPU (tests/test_lab_autograder.cpp); lab/grading/schemas/ holds each format's published schema.
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

struct AutograderFormat;

// The request, checked against the lab.
struct AutograderOptions {
  const AutograderFormat* format = nullptr;
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

struct AutograderFormat {
  std::string_view name;        // --format's value
  std::string_view system;      // "Gradescope"
  std::string_view reads_from;  // where the system expects the file
  bool has_visibility;          // per-test visibility (Gradescope only)
  nlohmann::json (*render)(const LabSpec&, const Grade&, const Ceiling&, const AutograderOptions&);
};

// Every format, in --help's order: adding a format is one entry in autograder_results.cpp.
const std::vector<AutograderFormat>& autograder_formats();
const AutograderFormat* find_autograder_format(std::string_view name);
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

// The results file's JSON in options.format.
nlohmann::json autograder_results(const LabSpec& spec, const Grade& grade, const Ceiling& ceiling,
                                  const AutograderOptions& options);

}  // namespace lb::lab
