// A GitHub Classroom grader step's result (classroom-resources' autograding-command-grader and
// autograding-io-grader write it; autograding-grading-reporter reads it, base64-encoded, from the
// step's output `result`; lab/grading/schemas/github-classroom-result.schema.json). The reporter's
// "Points X/Y" (what Classroom records) sums the tests' scores over the runners' max_score.
#include <cmath>

#include "lab/grading/grade_writer.h"

namespace lb::lab {
namespace {

// The reporter adds the tests' scores in order, in doubles, and posts the sum as "Points X/Y", the
// grade Classroom records: the last test that scored takes the rounding, so that the sum is the
// grade's points as they print ("51.43", not a sum with a tail of digits). Its score moves by an ulp or so;
// the reporter shows no test's score.
void close_the_sum(nlohmann::json& tests, double points) {
  std::size_t last = tests.size();
  for (std::size_t i = 0; i < tests.size(); ++i)
    if (tests[i]["score"].get<double>() > 0) last = i;
  if (last == tests.size()) return;
  double before = 0;
  for (std::size_t i = 0; i < last; ++i) before += tests[i]["score"].get<double>();
  double score = points - before;
  for (int ulp = 0; ulp < 4 && before + score != points; ++ulp)
    score = std::nextafter(score, before + score < points ? HUGE_VAL : -HUGE_VAL);
  if (before + score == points) tests[last]["score"] = score;
}

}  // namespace

nlohmann::json GithubClassroomWriter::document(const LabSpec& spec, const Grade& g, const Ceiling&,
                                               const AutograderOptions&) const {
  using nlohmann::json;
  json tests = json::array();
  bool all_passed = true, any_error = false;
  for (const AutograderTest& t : autograder_tests(spec, g)) {
    all_passed = all_passed && t.passed;
    any_error = any_error || t.error;
    tests.push_back({{"name", t.name},
                     {"status", t.passed ? "pass" : t.error ? "error" : "fail"},
                     {"score", score_hundredths(t.score)},
                     {"message", t.output},
                     {"filename", ""},
                     {"line_no", 0}});  // the reporter prints "- line N" unless it is 0
  }
  close_the_sum(tests, score_hundredths(g.points()));
  return {{"version", 1},
          {"status", all_passed ? "pass" : any_error ? "error" : "fail"},
          {"max_score", spec.check_points + spec.performance_points},
          {"tests", tests}};
}

}  // namespace lb::lab
