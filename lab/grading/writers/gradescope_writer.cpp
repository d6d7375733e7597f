// Gradescope's results.json (gradescope-autograders.readthedocs.io/en/latest/specs/,
// lab/grading/schemas/gradescope-results.schema.json): a test per check size and one for the
// performance part (autograder_tests), each with its visibility, and a leaderboard for a kernel
// whose speed was graded.
#include <cmath>

#include "lab/grading/grade_writer.h"

namespace lb::lab {

nlohmann::json GradescopeWriter::document(const LabSpec& spec, const Grade& g, const Ceiling& ceiling,
                                          const AutograderOptions& o) const {
  using nlohmann::json;
  json tests = json::array();
  for (const AutograderTest& t : autograder_tests(spec, g))
    tests.push_back({{"name", t.name},
                     {"score", score_hundredths(t.score)},
                     {"max_score", score_hundredths(t.max_score)},
                     {"status", t.passed ? "passed" : "failed"},
                     {"output", t.output},
                     {"visibility", visibility_of(o, t.key)}});
  // "text": the default, simple_format, would read a compiler's "<float>" as HTML.
  json doc = {{"score", score_hundredths(g.points())},
              {"output", summary_line(spec, g) + "\n" + joined_lines(g.feedback) +
                             (g.isolation.empty() ? "" : "\nisolation: " + g.isolation)},
              {"output_format", "text"},
              {"visibility", o.visibility},
              {"tests", tests}};
  if (o.execution_time_s >= 0) doc["execution_time"] = std::llround(o.execution_time_s);
  // Only a kernel whose speed was graded ranks: a refused one skipped work, the others were not timed.
  if (g.outcome == GradeOutcome::kGraded && g.speed) {
    doc["leaderboard"] = json::array({{{"name", "speed vs ours"}, {"value", std::round(*g.speed * 1000.0) / 1000.0},
                                       {"order", "desc"}}});
    if (g.ceiling_fraction)
      doc["leaderboard"].push_back({{"name", "% of the GPU's " + ceiling.what},
                                    {"value", std::round(*g.ceiling_fraction * 1000.0) / 10.0},
                                    {"order", "desc"}});
  }
  return doc;
}

}  // namespace lb::lab
