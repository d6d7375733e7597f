#include "lab/grading/grading.h"

#include "lab/runners/runner.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/format_number.h"

namespace lb::lab {
namespace {

double round1(double x) { return std::round(x * 10.0) / 10.0; }

// The figure a workload is judged by: GB/s for the memory-bound ones, GFLOP/s for matmul.
bool by_flops(const LabSpec& spec) { return spec.workload->figure() == Figure::kCompute; }
double rate(const LabSpec& spec, const Timing& t) { return by_flops(spec) ? t.gflops : t.gbps; }
const char* rate_unit(const LabSpec& spec) { return by_flops(spec) ? "GFLOP/s" : "GB/s"; }

std::string tier_text(const Tier& tier) { return format_number("at least %.2f of ours", tier.at_least); }

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

nlohmann::json timing_json(const std::optional<Timing>& t) {
  if (!t) return nullptr;
  return {{"median_ms", t->median_ms}, {"noise", t->noise}, {"samples", t->samples}, {"gbps", t->gbps},
          {"gflops", t->gflops}};
}

}  // namespace

const char* to_string(GradeOutcome outcome) {
  switch (outcome) {
    case GradeOutcome::kGraded: return "graded";
    case GradeOutcome::kCheckFailed: return "check failed";
    case GradeOutcome::kDidNotCompile: return "did not compile";
    case GradeOutcome::kCouldNotRun: return "could not run";
    case GradeOutcome::kRefused: return "refused";
  }
  return "?";
}

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  double log_sum = 0;
  for (double v : values) {
    if (!(v > 0)) return 0.0;
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

double check_points(const LabSpec& spec, std::size_t passed, std::size_t total) {
  return total == 0 ? 0.0 : round1(spec.check_points * static_cast<double>(passed) / static_cast<double>(total));
}

std::vector<long long> check_shares(const LabSpec& spec) {
  const std::size_t n = spec.check_size_texts.size();
  if (n == 0) return {};
  const long long total = std::max(0LL, static_cast<long long>(spec.check_points) * 100LL);
  const long long count = static_cast<long long>(n);
  std::vector<long long> shares(n, total / count);
  for (long long i = 0; i < total % count; ++i) ++shares[static_cast<std::size_t>(i)];
  return shares;
}

double check_points(const LabSpec& spec, const std::vector<SizeResult>& sizes) {
  const std::vector<long long> shares = check_shares(spec);
  long long earned = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const auto found = std::find_if(sizes.begin(), sizes.end(),
                                    [&](const SizeResult& r) { return r.size == spec.check_size_texts[i]; });
    if (found != sizes.end() && found->passed) earned += shares[i];
  }
  return static_cast<double>(earned) / 100.0;
}

const Tier* tier_for(const LabSpec& spec, double speed) {
  for (const Tier& tier : spec.tiers)
    if (speed >= tier.at_least) return &tier;
  return nullptr;
}

Grade grade_submission(const LabSpec& spec, std::string file, std::size_t passed, std::size_t total,
                       std::vector<BenchmarkResult> benchmarks, const Ceiling& ceiling) {
  Grade g;
  g.file = std::move(file);
  g.sizes_passed = passed;
  g.sizes_total = total;
  g.check_points = check_points(spec, passed, total);
  g.benchmarks = std::move(benchmarks);
  if (passed < total) {
    g.outcome = GradeOutcome::kCheckFailed;
    g.feedback.push_back(std::to_string(total - passed) + " of " + std::to_string(total) +
                         " check sizes failed: the performance part is graded only for a kernel that passes them all");
    return g;
  }
  g.outcome = GradeOutcome::kGraded;
  std::vector<double> speeds, fractions;
  std::string excesses;  // the sizes where the student's rate is above what the GPU allows
  for (const BenchmarkResult& b : g.benchmarks) {
    if (b.student)
      if (const std::string excess = rate_excess(b.limit, rate(spec, *b.student)); !excess.empty())
        excesses += (excesses.empty() ? "" : "; ") + ("at " + b.size + ": " + excess);
    if (!b.error.empty()) {
      g.feedback.push_back("at " + b.size + ": " + b.error);
    } else if (!b.student || !b.runtime) {
      g.feedback.push_back("at " + b.size + ": not timed (ours could not run)");
    } else {
      speeds.push_back(b.speed());
      if (ceiling.value > 0) fractions.push_back(rate(spec, *b.student) / ceiling.value);
    }
  }
  if (!excesses.empty()) {
    // A correct kernel cannot be this fast: its figures are kept, its speed earns nothing.
    g.outcome = GradeOutcome::kRefused;
    g.refusal = std::string(kSkippedWork) + " (" + excesses + ")";
    if (!speeds.empty()) g.speed = geometric_mean(speeds);
    if (!fractions.empty() && fractions.size() == speeds.size()) g.ceiling_fraction = geometric_mean(fractions);
    g.feedback.insert(g.feedback.begin(), "refused, 0 of " + std::to_string(spec.performance_points) +
                                              " performance points: " + g.refusal);
    return g;
  }
  if (speeds.size() != spec.benchmark_sizes.size()) {
    g.feedback.push_back("no performance points: not every benchmark size was timed");
    return g;
  }
  g.speed = geometric_mean(speeds);
  if (fractions.size() == speeds.size()) g.ceiling_fraction = geometric_mean(fractions);
  g.tier = tier_for(spec, *g.speed);
  g.performance_points = g.tier ? g.tier->points : 0;
  std::string line = spec.runner->what_is_timed() + " runs at " + format_number("%.2f", *g.speed) +
                     " of the speed of " + spec.runner->what_ours_is(spec);
  if (g.ceiling_fraction)
    line += format_number(", %.0f%%", 100.0 * *g.ceiling_fraction) + " of the GPU's " + ceiling.what;
  g.feedback.push_back(line);
  const Tier* better = nullptr;  // the tier just above the one reached
  for (const Tier& tier : spec.tiers)
    if (&tier != g.tier && tier.at_least > *g.speed) better = &tier;
  if (g.tier)
    g.feedback.push_back("tier " + tier_text(*g.tier) + ": " + std::to_string(g.tier->points) + " of " +
                         std::to_string(spec.performance_points) + " performance points");
  else
    g.feedback.push_back("below every tier: 0 of " + std::to_string(spec.performance_points) + " performance points");
  if (better)
    g.feedback.push_back("the next tier, " + tier_text(*better) + ", is worth " + std::to_string(better->points) +
                         " (" + spec.runner->where_its_time_goes() + ")");
  return g;
}

nlohmann::json grade_json(const LabSpec& spec, const Grade& g) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const BenchmarkResult& b : g.benchmarks) {
    nlohmann::json j = {{"size", b.size}, {"student", timing_json(b.student)}, {"runtime", timing_json(b.runtime)}};
    if (b.student && b.runtime) j["speed"] = b.speed();
    if (!b.error.empty()) j["error"] = b.error;
    if (b.student) {
      j["samples_verified"] = b.samples_verified;
      j["input_reset_ms"] = b.input_reset_ms;
    }
    if (b.limit.checked())
      j["limit"] = {{"limit", b.limit.limit}, {"unit", b.limit.unit()}, {"bound", b.limit.bound},
                    {"derivation", b.limit.derivation}};
    else
      j["limit"] = {{"not_checked", b.limit.not_checked}};
    benchmarks.push_back(j);
  }
  nlohmann::json by_size = nlohmann::json::array();
  for (const SizeResult& r : g.sizes) {
    nlohmann::json j = {{"size", r.size}, {"passed", r.passed}};
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
           {{"speed_vs_runtime", g.speed ? nlohmann::json(*g.speed) : nlohmann::json(nullptr)},
            {"fraction_of_ceiling", g.ceiling_fraction ? nlohmann::json(*g.ceiling_fraction) : nlohmann::json(nullptr)},
            {"tier_at_least", g.tier ? nlohmann::json(g.tier->at_least) : nlohmann::json(nullptr)},
            {"points", g.performance_points},
            {"max_points", spec.performance_points},
            {"refused", g.refusal.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.refusal)},
            {"benchmarks", benchmarks}}},
          {"feedback", g.feedback}};
}

std::string grade_markdown(const LabSpec& spec, const Grade& g, const Ceiling& ceiling) {
  std::ostringstream md;
  md << "## " << g.file << "\n\n";
  md << "**" << format_number("%g", g.points()) << " / " << spec.check_points + spec.performance_points << "** ("
     << to_string(g.outcome) << ")\n\n";
  md << "| part | result | points |\n|---|---|---|\n";
  md << "| check | " << g.sizes_passed << " of " << g.sizes_total << " sizes passed | "
     << format_number("%g", g.check_points) << " / " << spec.check_points << " |\n";
  md << "| performance | "
     << (!g.refusal.empty() ? "**refused**: " + g.refusal
         : g.speed          ? format_number("%.2f", *g.speed) + " of ours" +
                         (g.tier ? ", tier " + tier_text(*g.tier) : ", below every tier")
                   : std::string("not graded"))
     << " | " << format_number("%g", g.performance_points) << " / " << spec.performance_points << " |\n\n";
  bool any_timed = false, any_limit = false;
  for (const BenchmarkResult& b : g.benchmarks) {
    any_timed = any_timed || (b.student && b.runtime);
    any_limit = any_limit || (b.student && b.runtime && b.limit.checked());
  }
  if (any_timed) {
    md << "| size | yours ms | ours ms | yours " << rate_unit(spec) << " | ours " << rate_unit(spec) << " | speed";
    if (ceiling.value > 0) md << " | yours / " << ceiling.what;
    if (any_limit) md << " | most the GPU allows " << rate_unit(spec);
    md << " |\n|---|---|---|---|---|---|" << (ceiling.value > 0 ? "---|" : "") << (any_limit ? "---|" : "") << "\n";
    for (const BenchmarkResult& b : g.benchmarks) {
      if (!b.student || !b.runtime) continue;
      md << "| " << b.size << " | " << format_number("%.4f", b.student->median_ms) << " | "
         << format_number("%.4f", b.runtime->median_ms) << " | " << format_number("%.0f", rate(spec, *b.student))
         << " | " << format_number("%.0f", rate(spec, *b.runtime)) << " | " << format_number("%.2f", b.speed());
      if (ceiling.value > 0) md << " | " << format_number("%.0f%%", 100.0 * rate(spec, *b.student) / ceiling.value);
      if (any_limit) md << " | " << (b.limit.checked() ? format_number("%.0f", b.limit.limit) : std::string("-"));
      md << " |\n";
    }
    md << "\n";
  }
  for (const std::string& line : g.feedback) md << "- " << line << "\n";
  return md.str();
}

std::string csv_header() {
  return "file,lab,outcome,points,max_points,sizes_passed,sizes,check_points,speed_vs_runtime,fraction_of_ceiling,"
         "tier_at_least,performance_points,feedback\n";
}

std::string csv_row(const LabSpec& spec, const Grade& g) {
  auto number = [](const std::optional<double>& v) { return v ? format_number("%.4f", *v) : std::string(); };
  std::string feedback;
  for (const std::string& line : g.feedback) feedback += (feedback.empty() ? "" : " | ") + line;
  std::ostringstream row;
  row << csv_field(g.file) << "," << spec.name << "," << to_string(g.outcome) << "," << format_number("%g", g.points())
      << "," << spec.check_points + spec.performance_points << "," << g.sizes_passed << "," << g.sizes_total << ","
      << format_number("%g", g.check_points) << "," << number(g.speed) << "," << number(g.ceiling_fraction) << ","
      << (g.tier ? format_number("%g", g.tier->at_least) : std::string()) << ","
      << format_number("%g", g.performance_points) << "," << csv_field(feedback) << "\n";
  return row.str();
}

}  // namespace lb::lab
