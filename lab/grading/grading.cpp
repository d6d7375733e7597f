#include "lab/grading/grading.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/format_number.h"
#include "lab/child/child_process.h"
#include "lab/runners/runner.h"

namespace lb::lab {
namespace {

double round1(double x) { return std::round(x * 10.0) / 10.0; }

// The figure a workload is judged by: GB/s for the memory-bound ones, GFLOP/s for matmul.
bool by_flops(const LabSpec& spec) { return spec.workload->figure() == Figure::kCompute; }
double rate(const LabSpec& spec, const Timing& t) { return by_flops(spec) ? t.gflops : t.gbps; }

std::string tier_text(const Tier& tier) { return format_number("at least %.2f of ours", tier.at_least); }

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

namespace {

// The grade's performance part and feedback, once its check's points are set.
Grade graded(const LabSpec& spec, Grade g, std::vector<BenchmarkResult> benchmarks, const Ceiling& ceiling) {
  const std::size_t passed = g.sizes_passed, total = g.sizes_total;
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

}  // namespace

Grade grade_submission(const LabSpec& spec, std::string file, std::size_t passed, std::size_t total,
                       std::vector<BenchmarkResult> benchmarks, const Ceiling& ceiling) {
  Grade g;
  g.file = std::move(file);
  g.sizes_passed = passed;
  g.sizes_total = total;
  g.check_points = check_points(spec, passed, total);
  return graded(spec, std::move(g), std::move(benchmarks), ceiling);
}

Grade grade_submission(const LabSpec& spec, std::string file, std::vector<SizeResult> sizes,
                       std::vector<BenchmarkResult> benchmarks, const Ceiling& ceiling) {
  Grade g;
  g.file = std::move(file);
  g.sizes_total = sizes.size();
  g.sizes_passed = static_cast<std::size_t>(
      std::count_if(sizes.begin(), sizes.end(), [](const SizeResult& r) { return r.passed; }));
  g.check_points = check_points(spec, sizes);  // each size's fixed share (check_shares)
  g.sizes = std::move(sizes);
  return graded(spec, std::move(g), std::move(benchmarks), ceiling);
}

std::vector<SizeResult> size_results(const LabSpec& spec, const ChildReport& report) {
  const std::string stopped = !report.compile_error.empty()    ? "the file did not compile"
                              : !report.error.empty()          ? report.error
                              : !report.protocol_error.empty() ? protocol_error_text(report.protocol_error)
                                                               : report.why_stopped();
  std::vector<SizeResult> sizes;
  bool reached = true;
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    SizeResult r{spec.check_size_texts[i], check_size_label(spec, i)};
    const auto found = report.by_size.find(r.size);
    if (found != report.by_size.end() && report.compile_error.empty()) {
      r.passed = found->second.passed;
      if (!r.passed) r.feedback = found->second.feedback.empty() ? "wrong result" : found->second.feedback;
    } else {
      r.feedback = reached ? stopped : "not run";
      reached = false;
    }
    sizes.push_back(std::move(r));
  }
  return sizes;
}

namespace {

std::optional<Timing> timing(const std::optional<Figures>& f) {
  if (!f || !(f->median_ms > 0)) return std::nullopt;  // not a time: not timed
  return Timing{f->median_ms, f->noise, f->gbps, f->gflops, f->samples};
}

// The timing child's figures per benchmark size, each with the most a correct kernel can show there.
std::vector<BenchmarkResult> benchmark_results(const LabSpec& spec, const ChildReport& timed) {
  std::vector<BenchmarkResult> benchmarks;
  for (const BenchmarkEvent& event : timed.benchmarks) {
    BenchmarkResult b;
    if (const auto* failed = std::get_if<BenchmarkFailed>(&event)) {
      b.size = failed->size;
      b.error = failed->error;
    } else {
      const BenchmarkTimed& t = std::get<BenchmarkTimed>(event);
      b.size = t.size;
      b.student = timing(t.student);
      b.runtime = timing(t.ours);
      if (!t.ours) b.error = "ours failed: " + t.ours_error;
      b.samples_verified = t.samples_verified;
      b.input_reset_ms = t.input_reset_ms;
      b.sample_verify_ms = t.sample_verify_ms;
      b.handover_ms = t.handover_ms;
    }
    b.limit = spec.runner->rate_limit(spec, b.size, timed.environment);
    benchmarks.push_back(std::move(b));
  }
  return benchmarks;
}

}  // namespace

Grade grade_reports(const LabSpec& spec, const std::string& file, const ChildReport& check, const ChildReport& timed) {
  if (!check.compile_error.empty()) {
    Grade g;
    g.file = file;
    g.outcome = GradeOutcome::kDidNotCompile;
    g.sizes_total = spec.check_sizes.size();
    g.sizes = size_results(spec, check);
    g.compiler_message = check.compile_error;
    std::istringstream lines(check.compile_error);
    for (std::string line; std::getline(lines, line) && g.feedback.size() < 3;)
      if (!line.empty()) g.feedback.push_back(line);
    return g;
  }
  if (!check.protocol_error.empty()) {  // the check's own lines could not be read: nothing to grade
    Grade g;
    g.file = file;
    g.outcome = GradeOutcome::kCouldNotRun;
    g.sizes_total = spec.check_sizes.size();
    g.sizes = size_results(spec, check);
    for (SizeResult& r : g.sizes)  // nothing the check said is trusted
      if (r.passed) r = {r.size, r.label, false, protocol_error_text(check.protocol_error)};
    g.feedback.push_back(protocol_error_text(check.protocol_error));
    return g;
  }
  // A timing child that wrote a line it should not have is not trusted for any size: no timing.
  std::vector<BenchmarkResult> benchmarks;
  if (timed.protocol_error.empty()) benchmarks = benchmark_results(spec, timed);
  Grade g = grade_submission(spec, file, size_results(spec, check), std::move(benchmarks),
                             spec.runner->ceiling(spec, timed.environment));
  for (std::string& line : spec.runner->timing_feedback(spec, timed, g)) g.feedback.push_back(std::move(line));
  for (const SizeResult& r : g.sizes)
    if (!r.passed && check.by_size.count(r.size)) {
      g.feedback.push_back(r.label + ": " + check.by_size.at(r.size).feedback);
      break;  // the first failure; the check's lines above have them all
    }
  // What the student's code printed is its own output: never a result, said once.
  if (const std::size_t printed = check.child.out_bytes + check.child.err_bytes + timed.child.out_bytes +
                                  timed.child.err_bytes;
      printed > 0)
    g.feedback.push_back("your code printed " + std::to_string(printed) +
                         " bytes on its standard output and error (`lab check` shows them); none is read as a result");
  for (const ChildReport* r : {&check, &timed}) {
    if (!r->error.empty()) g.feedback.push_back(r->error);
    else if (!r->protocol_error.empty()) g.feedback.push_back(protocol_error_text(r->protocol_error));
    else if (r->ended_abnormally()) g.feedback.push_back(r->why_stopped());
  }
  return g;
}

}  // namespace lb::lab
