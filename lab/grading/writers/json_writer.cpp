// `lab grade --json`: every submission graded so far, with the run's GPU, ceiling and peaks. The
// leaderboard (lab/grading/leaderboard.h) reads these files back.
#include "lab/grading/grade_writer.h"

namespace lb::lab {
namespace {

using nlohmann::json;

json timing_json(const std::optional<Timing>& t) {
  if (!t) return nullptr;
  return {{"median_ms", t->median_ms}, {"noise", t->noise}, {"samples", t->samples}, {"gbps", t->gbps},
          {"gflops", t->gflops}};
}

}  // namespace

json JsonWriter::submission(const LabSpec& spec, const Grade& g) {
  json benchmarks = json::array();
  for (const BenchmarkResult& b : g.benchmarks) {
    json j = {{"size", b.size}, {"student", timing_json(b.student)}, {"runtime", timing_json(b.runtime)}};
    if (b.student && b.runtime) j["speed"] = b.speed();
    if (!b.error.empty()) j["error"] = b.error;
    if (b.student) {
      j["samples_verified"] = b.samples_verified;
      j["input_reset_ms"] = b.input_reset_ms;
      j["sample_verify_ms"] = b.sample_verify_ms;
      if (b.handover_ms > 0) j["handover_ms"] = b.handover_ms;  // lab 8's alone
    }
    if (b.limit.checked())
      j["limit"] = {{"limit", b.limit.limit}, {"unit", b.limit.unit()}, {"bound", b.limit.bound},
                    {"derivation", b.limit.derivation}};
    else
      j["limit"] = {{"not_checked", b.limit.not_checked}};
    benchmarks.push_back(j);
  }
  json by_size = json::array();
  for (const SizeResult& r : g.sizes) {
    json j = {{"size", r.size}, {"passed", r.passed}};
    if (!r.feedback.empty()) j["feedback"] = r.feedback;
    by_size.push_back(j);
  }
  return {{"file", g.file},
          {"lab", spec.name},
          {"outcome", to_string(g.outcome)},
          {"points", g.points()},
          {"max_points", spec.check_points + spec.performance_points},
          {"check",
           {{"sizes_passed", g.sizes_passed},
            {"sizes", g.sizes_total},
            {"points", g.check_points},
            {"max_points", spec.check_points},
            {"by_size", by_size}}},
          {"performance",
           {{"speed_vs_runtime", g.speed ? json(*g.speed) : json(nullptr)},
            {"fraction_of_ceiling", g.ceiling_fraction ? json(*g.ceiling_fraction) : json(nullptr)},
            {"tier_at_least", g.tier ? json(g.tier->at_least) : json(nullptr)},
            {"points", g.performance_points},
            {"max_points", spec.performance_points},
            {"refused", g.refusal.empty() ? json(nullptr) : json(g.refusal)},
            {"benchmarks", benchmarks}}},
          {"feedback", g.feedback},
          {"wall_s", {{"check", g.check_wall_s}, {"timing", g.timing_wall_s}}}};
}

std::string JsonWriter::render(const GradeReport& r) const {
  json submissions = json::array();
  for (const Grade& g : r.grades) submissions.push_back(submission(r.spec, g));
  const json doc = {{"lab", r.spec.name},
                    {"title", r.spec.title},
                    {"graded_at", r.graded_at},
                    {"gpu", r.gpu ? json(*r.gpu) : json(nullptr)},
                    {"ceiling", {{"what", r.ceiling.what}, {"unit", r.ceiling.unit}, {"value", r.ceiling.value}}},
                    {"peaks", r.peaks},
                    {"isolation", r.isolation},
                    {"submissions", submissions}};
  return doc.dump(2) + "\n";
}

}  // namespace lb::lab
