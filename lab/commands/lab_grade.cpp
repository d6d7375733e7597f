#include "lab/commands/lab_grade.h"

#include <chrono>
#include <ctime>
#include <sstream>

#include "common/format_number.h"
#include "common/output_file.h"
#include "lab/grading/grading.h"
#include "lab/runners/runner.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The timing child's limit: the ceilings, measured once, then per benchmark size the inputs, the
// student's and our timed runs (each capped at 3 s by the stopping rule) and their checks.
double timing_time_limit(const LabSpec& spec) {
  return spec.time_limit_s + 20.0 + 30.0 * static_cast<double>(spec.benchmark_sizes.size());
}

// The timing child's environment, when it reported one.
using Reported = std::optional<TimingEnvironment>;

std::optional<Timing> timing(const std::optional<Figures>& f) {
  if (!f || !(f->median_ms > 0)) return std::nullopt;  // not a time: not timed
  return Timing{f->median_ms, f->noise, f->gbps, f->gflops, f->samples};
}

// Every check size's outcome, for the grading systems' per-size tests: the first size the check
// never reached fails with what stopped it, as the check's lines say.
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

// `report` is the check's, `timed` the timing child's (empty when the check failed).
Grade grade_of(const LabSpec& spec, const fs::path& file, const ChildReport& report, const ChildReport& timed,
               const Ceiling& ceiling) {
  if (!report.compile_error.empty()) {
    Grade g;
    g.file = file.string();
    g.outcome = GradeOutcome::kDidNotCompile;
    g.sizes_total = spec.check_sizes.size();
    g.sizes = size_results(spec, report);
    g.compiler_message = report.compile_error;
    std::istringstream lines(report.compile_error);
    for (std::string line; std::getline(lines, line) && g.feedback.size() < 3;)
      if (!line.empty()) g.feedback.push_back(line);
    return g;
  }
  if (!report.protocol_error.empty()) {  // the check's own lines could not be read: nothing to grade
    Grade g;
    g.file = file.string();
    g.outcome = GradeOutcome::kCouldNotRun;
    g.sizes_total = spec.check_sizes.size();
    g.sizes = size_results(spec, report);
    for (SizeResult& r : g.sizes)  // nothing the check said is trusted
      if (r.passed) r = {r.size, r.label, false, protocol_error_text(report.protocol_error)};
    g.feedback.push_back(protocol_error_text(report.protocol_error));
    return g;
  }
  std::vector<BenchmarkResult> benchmarks;
  // A timing child that wrote a line it should not have is not trusted for any size: no timing.
  if (timed.protocol_error.empty()) {
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
      }
      b.limit = spec.runner->rate_limit(spec, b.size, timed.environment);
      benchmarks.push_back(std::move(b));
    }
  }
  Grade g = grade_submission(spec, file.string(), report.sizes_passed(), spec.check_sizes.size(),
                             std::move(benchmarks), ceiling);
  g.sizes = size_results(spec, report);
  g.check_points = check_points(spec, g.sizes);  // each size's fixed share (check_shares)
  spec.runner->add_feedback(spec, timed, g);
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    const auto found = report.by_size.find(spec.check_size_texts[i]);
    if (found != report.by_size.end() && !found->second.passed) {
      g.feedback.push_back(check_size_label(spec, i) + ": " + found->second.feedback);
      break;  // the first failure; the check's lines above have them all
    }
  }
  for (const ChildReport* r : {&report, &timed}) {
    if (!r->error.empty()) g.feedback.push_back(r->error);
    else if (!r->protocol_error.empty()) g.feedback.push_back(protocol_error_text(r->protocol_error));
    else if (r->ended_abnormally()) g.feedback.push_back(r->why_stopped());
  }
  return g;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

void print_grade(const LabSpec& spec, const Grade& g, std::FILE* out) {
  std::fprintf(out, "GRADE %s: %g / %d  (check %g / %d", g.file.c_str(), g.points(),
               spec.check_points + spec.performance_points, g.check_points, spec.check_points);
  if (g.outcome == GradeOutcome::kGraded || g.outcome == GradeOutcome::kRefused)
    std::fprintf(out, ", performance %g / %d%s", g.performance_points, spec.performance_points,
                 g.outcome == GradeOutcome::kRefused ? ": refused" : "");
  std::fprintf(out, ")\n");
  for (const BenchmarkResult& b : g.benchmarks)
    if (b.student && b.runtime)
      std::fprintf(out, "  n = %s: yours %.4f ms, ours %.4f ms: %.2f of ours%s\n", b.size.c_str(), b.student->median_ms,
                   b.runtime->median_ms, b.speed(),
                   // What each timed sample cost the grade besides the kernel (lab/child/fresh_inputs.h).
                   b.input_reset_ms > 0
                       ? format_number(" (fresh inputs: %.3f ms per sample, outside the timed region)", b.input_reset_ms).c_str()
                       : "");
  for (const std::string& line : g.feedback) std::fprintf(out, "  %s\n", line.c_str());
}

// Everything graded so far, in each format asked for: rewritten whole after every submission, so
// an interrupted batch keeps what it measured.
void write_outputs(const LabSpec& spec, const std::vector<Grade>& grades, const Reported& environment,
                   const std::string& started, const GradeOptions& options) {
  const Ceiling ceiling = spec.runner->ceiling(spec, environment);
  if (!options.json_path.empty()) {
    json submissions = json::array();
    for (const Grade& g : grades) submissions.push_back(grade_json(spec, g));
    const json doc = {{"lab", spec.name},
                      {"title", spec.title},
                      {"graded_at", started},
                      {"gpu", environment ? json(environment->gpu) : json(nullptr)},
                      {"ceiling", {{"what", ceiling.what}, {"unit", ceiling.unit}, {"value", ceiling.value}}},
                      {"peaks", environment ? environment->peaks : json(nullptr)},
                      {"submissions", submissions}};
    write_output(options.json_path, doc.dump(2) + "\n");
  }
  if (!options.csv_path.empty()) {
    std::string csv = csv_header();
    for (const Grade& g : grades) csv += csv_row(spec, g);
    write_output(options.csv_path, csv);
  }
  if (!options.markdown_path.empty()) {
    std::string md = "# " + spec.name + ": " + spec.title + "\n\nGraded " + started;
    if (environment) md += " on " + environment->gpu;
    if (ceiling.value > 0)
      md += "; the GPU's " + ceiling.what + ", measured in the same run: " + std::to_string(std::lround(ceiling.value)) +
            " " + ceiling.unit;
    if (const std::optional<DevicePeaks> peaks = peaks_from_json(environment ? environment->peaks : json())) {
      const bool compute = spec.workload->figure() == Figure::kCompute;
      const double peak = compute ? peaks->fp32_gflops : peaks->dram_gbps;
      if (peak > 0)
        md += "; a kernel faster than the GPU's theoretical peak (" +
              (compute ? "fp32 " + std::to_string(std::lround(peak)) + " GFLOP/s"
                       : "DRAM " + std::to_string(std::lround(peak)) +
                             " GB/s, for the part of the working set the L2 cannot hold") +
              ") is refused: it skipped work";
    }
    md += ".\n\n";
    for (const Grade& g : grades) md += grade_markdown(spec, g, ceiling) + "\n";
    write_output(options.markdown_path, md);
  }
}

// Before any grading: no output file may be a submission (the grades written over a student's
// kernel), nor the same file as another output (the second written over the first).
void check_output_paths(const std::vector<fs::path>& files, const GradeOptions& options) {
  const auto same = [](const fs::path& a, const fs::path& b) {
    std::error_code ea, eb, ec;
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
    const fs::path cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
    if (!ea && !eb && ca == cb) return true;
    return fs::equivalent(a, b, ec);  // links to one file; false (ec set) where either is missing
  };
  const std::vector<std::pair<const char*, const std::string*>> outputs = {
      {"--json", &options.json_path}, {"--csv", &options.csv_path}, {"--markdown", &options.markdown_path},
      {"--results", &options.autograder.results_path}};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path->empty()) continue;
    for (const fs::path& file : files)
      if (same(*path, file))
        throw UsageError(std::string(flag) + " " + *path + ": is a submission being graded; writing the grades there "
                         "would destroy it (pick another file)");
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (!outputs[j].second->empty() && same(*path, *outputs[j].second))
        throw UsageError(std::string(flag) + " and " + outputs[j].first + " both name " + *path +
                         ": give each its own file");
  }
}

}  // namespace

int grade_submissions(const LabSpec& spec, const std::vector<fs::path>& files, const GradeOptions& options,
                      std::FILE* out) {
  AutograderOptions autograder = autograder_options(spec, options.autograder, files.size());
  for (const fs::path& file : files) require_student_file(file);
  check_output_paths(files, options);
  for (const std::string* path :
       {&options.json_path, &options.csv_path, &options.markdown_path, &options.autograder.results_path})
    if (!path->empty()) check_writable(*path);
  const std::string started = utc_now();
  const auto start = std::chrono::steady_clock::now();
  std::vector<Grade> grades;
  Reported environment;
  bool all_passed = true;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files.size() > 1) std::fprintf(out, "\n[%zu/%zu] %s\n", i + 1, files.size(), files[i].c_str());
    std::fflush(out);
    const ChildReport report = run_child_process(spec, files[i], ChildMode::kCheck, options.check, spec.time_limit_s);
    const int status = print_check_report(spec, files[i], report, out);
    if (status == kExitCannotRun) return kExitCannotRun;  // the same for every submission: stop here
    ChildReport timed;
    if (status == kExitPassed) {
      std::fprintf(out, "timing it against ours at %zu size%s...\n", spec.benchmark_sizes.size(),
                   spec.benchmark_sizes.size() == 1 ? "" : "s");
      std::fflush(out);
      timed = run_child_process(spec, files[i], ChildMode::kTime, options.check, timing_time_limit(spec));
      if (timed.environment) environment = timed.environment;
    }
    grades.push_back(grade_of(spec, files[i], report, timed, spec.runner->ceiling(spec, timed.environment)));
    all_passed = all_passed && status == kExitPassed;
    print_grade(spec, grades.back(), out);
    write_outputs(spec, grades, environment, started, options);
    if (autograder.format) {
      autograder.execution_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const json results = autograder_results(spec, grades.back(), spec.runner->ceiling(spec, timed.environment), autograder);
      write_output(options.autograder.results_path, results.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    }
  }
  if (files.size() > 1) {
    std::fprintf(out, "\n%-40s %8s  %s\n", "submission", "points", "outcome");
    for (const Grade& g : grades)
      std::fprintf(out, "%-40s %8g  %s\n", g.file.c_str(), g.points(), to_string(g.outcome));
  }
  for (const std::string* path :
       {&options.json_path, &options.csv_path, &options.markdown_path, &options.autograder.results_path})
    if (!path->empty()) std::fprintf(out, "wrote %s\n", path->c_str());
  return all_passed ? kExitPassed : kExitFailed;
}

}  // namespace lb::lab
