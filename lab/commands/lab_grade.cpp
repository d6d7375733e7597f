#include "lab/commands/lab_grade.h"

#include <chrono>
#include <ctime>

#include "common/output_file.h"
#include "lab/child/child_mode.h"  // kTimingSecondsPerBenchmarkSize
#include "lab/child/student_sandbox.h"
#include "lab/grading/grade_writer.h"
#include "lab/grading/grading.h"
#include "lab/runners/runner.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

// The timing child's limit: the ceilings, measured once, then per benchmark size the inputs, the
// student's and our timed runs and their checks (the student's sampling capped at
// kStudentSamplingMaxSeconds, child_mode.h).
double timing_time_limit(const LabSpec& spec) {
  return spec.time_limit_s + 20.0 + kTimingSecondsPerBenchmarkSize * static_cast<double>(spec.benchmark_sizes.size());
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// The output files asked for: each flag, the format its writer is registered under, and its path.
struct Output {
  const char* flag;
  std::string_view format;
  const std::string* path;
};

std::vector<Output> outputs_of(const GradeOptions& options, const AutograderOptions& autograder) {
  std::vector<Output> outputs = {
      {"--json", "json", &options.json_path}, {"--csv", "csv", &options.csv_path},
      {"--markdown", "markdown", &options.markdown_path},
      {"--results", autograder.format ? autograder.format->name() : std::string_view(), &options.autograder.results_path}};
  std::erase_if(outputs, [](const Output& o) { return o.path->empty(); });
  return outputs;
}

// Before any grading: no output file may be a submission (the grades written over a student's
// kernel), nor the same file as another output (the second written over the first).
void check_output_paths(const std::vector<fs::path>& files, const std::vector<Output>& outputs) {
  const auto same = [](const fs::path& a, const fs::path& b) {
    std::error_code ea, eb, ec;
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
    const fs::path cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
    if (!ea && !eb && ca == cb) return true;
    return fs::equivalent(a, b, ec);  // links to one file; false (ec set) where either is missing
  };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, format, path] = outputs[i];
    for (const fs::path& file : files)
      if (same(*path, file))
        throw UsageError(std::string(flag) + " " + *path + ": is a submission being graded; writing the grades there "
                         "would destroy it (pick another file)");
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (same(*path, *outputs[j].path))
        throw UsageError(std::string(flag) + " and " + outputs[j].flag + " both name " + *path +
                         ": give each its own file");
  }
}

}  // namespace

int grade_submissions(const LabSpec& spec, const std::vector<fs::path>& files, const GradeOptions& options,
                      std::FILE* out) {
  const AutograderOptions autograder = autograder_options(spec, options.autograder, files.size());
  for (const fs::path& file : files) require_student_file(file);
  const std::vector<Output> outputs = outputs_of(options, autograder);
  check_output_paths(files, outputs);
  for (const Output& o : outputs) check_writable(*o.path);
  // A grade is a figure the student's code must not reach: where it could write the grader's files
  // or signal its processes, only an explicit option grades, and the outputs say so.
  const StudentIsolation& isolation = student_isolation();
  if (!isolation_is_full(isolation) && !options.accept_weak_isolation)
    throw UsageError("the student's code would not be held apart from the grader: " + isolation.description +
                     " (grade as root with a Python and layerbench that any user can run, or pass "
                     "--accept-weak-isolation to grade with what holds, which the grade's outputs then state)");
  const auto start = std::chrono::steady_clock::now();
  GradeReport report{spec,       utc_now(), std::nullopt, nullptr, spec.runner->ceiling(spec, std::nullopt), {},
                     autograder, isolation.description};
  bool all_passed = true;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files.size() > 1) std::fprintf(out, "\n[%zu/%zu] %s\n", i + 1, files.size(), files[i].c_str());
    std::fflush(out);
    const auto check_start = std::chrono::steady_clock::now();
    const ChildReport check = run_child_process(spec, files[i], ChildMode::kCheck, options.check, spec.time_limit_s);
    const double check_wall_s = seconds_since(check_start);
    const int status = print_check_report(spec, files[i], check, out);
    if (status == kExitCannotRun) return kExitCannotRun;  // the same for every submission: stop here
    ChildReport timed;
    double timing_wall_s = 0;
    if (status == kExitPassed) {
      std::fprintf(out, "timing it against ours at %zu size%s...\n", spec.benchmark_sizes.size(),
                   spec.benchmark_sizes.size() == 1 ? "" : "s");
      std::fflush(out);
      const auto timing_start = std::chrono::steady_clock::now();
      timed = run_child_process(spec, files[i], ChildMode::kTime, options.check, timing_time_limit(spec));
      timing_wall_s = seconds_since(timing_start);
      if (timed.environment) {  // the batch's GPU: the last timing child's that reported one
        report.gpu = timed.environment->gpu;
        report.peaks = timed.environment->peaks;
        report.ceiling = spec.runner->ceiling(spec, timed.environment);
      }
    }
    report.grades.push_back(grade_reports(spec, files[i].string(), check, timed));
    report.grades.back().isolation = isolation.description;
    report.grades.back().check_wall_s = check_wall_s;
    report.grades.back().timing_wall_s = timing_wall_s;
    all_passed = all_passed && status == kExitPassed;
    std::fputs(ConsoleWriter::grade_lines(spec, report.grades.back()).c_str(), out);
    report.autograder.execution_time_s = seconds_since(start);
    // Everything graded so far, in each format asked for: rewritten whole after every submission, so
    // an interrupted batch keeps what it measured.
    for (const Output& o : outputs) write_output(*o.path, find_grade_writer(o.format)->render(report));
  }
  if (files.size() > 1) std::fputs(ConsoleWriter::summary(report.grades).c_str(), out);
  for (const Output& o : outputs) std::fprintf(out, "wrote %s\n", o.path->c_str());
  return all_passed ? kExitPassed : kExitFailed;
}

}  // namespace lb::lab
