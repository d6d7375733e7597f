// PrairieLearn's external grader results.json (docs/externalGrading.md, "Grading results", in the
// PrairieLearn repository; lab/grading/schemas/prairielearn-results.schema.json). Always gradable: a
// file that does not compile earns 0 points here as in every other output of `lab grade`.
#include <algorithm>
#include <cmath>

#include "lab/grading/grade_writer.h"

namespace lb::lab {

nlohmann::json PrairieLearnWriter::document(const LabSpec& spec, const Grade& g, const Ceiling&,
                                            const AutograderOptions&) const {
  using nlohmann::json;
  json tests = json::array();
  for (const AutograderTest& t : autograder_tests(spec, g))
    tests.push_back({{"name", t.name},
                     {"description", t.description},
                     {"points", score_hundredths(t.score)},
                     {"max_points", score_hundredths(t.max_score)},
                     {"message", t.message},
                     {"output", t.output}});
  const int max_points = spec.check_points + spec.performance_points;
  const double score = max_points > 0 ? g.points() / max_points : 0.0;
  return {{"gradable", true},
          {"score", std::clamp(std::round(score * 1e6) / 1e6, 0.0, 1.0)},
          {"message", summary_line(spec, g)},
          {"output", joined_lines(g.feedback) + (g.isolation.empty() ? "" : "\nisolation: " + g.isolation)},
          {"tests", tests}};
}

}  // namespace lb::lab
