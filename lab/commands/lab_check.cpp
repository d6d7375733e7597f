#include "lab/commands/lab_check.h"

#include <sstream>

#include "lab/commands/sanitize.h"
#include "lab/grading/feedback.h"
#include "lab/runners/runner.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

void print_compile_error(std::FILE* out, const LabSpec& spec, const fs::path& file, const std::string& message) {
  std::fprintf(out, "%s %s:\n", file.c_str(), spec.runner->compile_failed_as().c_str());
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) std::fprintf(out, "  %s\n", line.c_str());
  std::fprintf(out, "FAIL: %s\n", spec.runner->compile_failed_rule(file.filename().string()).c_str());
}

}  // namespace

int print_check_report(const LabSpec& spec, const fs::path& file, const ChildReport& report, std::FILE* out) {
  if (!report.no_gpu.empty()) {
    std::fprintf(out, "cannot run the check here: no usable GPU (%s)\n", report.no_gpu.c_str());
    return kExitCannotRun;
  }
  if (!report.runner_unavailable.empty()) {
    std::fprintf(out, "cannot run the check here: %s\n", report.runner_unavailable.c_str());
    return kExitCannotRun;
  }
  if (!report.compile_error.empty()) {
    print_compile_error(out, spec, file, report.compile_error);
    return kExitFailed;
  }
  std::fprintf(out, "%s: %s\n", spec.name.c_str(), spec.title.c_str());
  if (report.built)  // a one-time cost, never timed
    std::fprintf(out, "  built in %.1f s: %s\n", report.built->ms / 1e3, report.built->what.c_str());
  std::vector<SizeOutcome> outcomes;
  std::size_t passed = 0;
  bool stopped = false;
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    const std::string label = check_size_label(spec, i);
    const auto found = report.by_size.find(spec.check_size_texts[i]);
    if (stopped) {
      std::fprintf(out, "  SKIP  %s: not run\n", label.c_str());
    } else if (found != report.by_size.end()) {
      const bool ok = found->second.passed;
      passed += ok;
      outcomes.push_back({spec.check_sizes[i], ok});
      if (ok) std::fprintf(out, "  PASS  %s\n", label.c_str());
      else std::fprintf(out, "  FAIL  %s: %s\n", label.c_str(), found->second.feedback.c_str());
    } else {
      const std::string why = !report.error.empty()          ? report.error
                              : !report.protocol_error.empty() ? protocol_error_text(report.protocol_error)
                                                               : report.why_stopped();
      std::fprintf(out, "  FAIL  %s: %s\n", label.c_str(), why.c_str());
      stopped = true;
    }
  }
  // What the student's code printed (a kernel's printf): shown capped, never read as a result.
  if (const std::string printed = report.student_output(); !printed.empty()) {
    std::fprintf(out, "  your code printed (its standard output and error; shown, never read as results):\n");
    std::istringstream lines(printed);
    for (std::string line; std::getline(lines, line);) std::fprintf(out, "  | %s\n", line.c_str());
  }
  const std::string hint = hint_across_sizes(outcomes, spec.workload->size_form() != SizeForm::kCount, spec.launch.block_x,
                                             spec.launch.block_y);
  if (!hint.empty()) std::fprintf(out, "  hint: %s\n", hint.c_str());
  const std::size_t total = spec.check_sizes.size();
  if (!report.protocol_error.empty() && passed == total) {
    // Every size said it passed, but a line the check could not read came with them: no pass.
    std::fprintf(out, "FAIL: %s\n", protocol_error_text(report.protocol_error).c_str());
    return kExitFailed;
  }
  if (passed == total) std::fprintf(out, "PASS: all %zu sizes passed\n", total);
  else std::fprintf(out, "FAIL: %zu of %zu sizes passed\n", passed, total);
  return passed == total ? kExitPassed : kExitFailed;
}

int check_submission(const LabSpec& spec, const fs::path& file, const CheckOptions& options, std::FILE* out) {
  if (options.sanitize) {
    require_student_file(file);
    if (const ToolLookup tool = find_cuda_tool("compute-sanitizer"); !tool.found()) {
      std::fprintf(out, "cannot run --sanitize here: %s\n", tool.why_not.c_str());
      return kExitCannotRun;
    }
  }
  std::fflush(out);
  const ChildReport report = run_child_process(spec, file, ChildMode::kCheck, options, spec.time_limit_s);
  const int status = print_check_report(spec, file, report, out);
  // --sanitize: memcheck's findings after the check's lines. Errors fail a check that passed; a
  // sanitizer that did not finish a check that passed means it could not run here.
  if (!options.sanitize || !report.no_gpu.empty() || !report.runner_unavailable.empty() || !report.compile_error.empty())
    return status;
  const SanitizerReport sanitizer = parse_sanitizer_log(report.sanitizer_log);
  for (const std::string& line : sanitizer_lines(sanitizer)) std::fprintf(out, "%s\n", line.c_str());
  if (status != kExitPassed) return status;
  if (!sanitizer.finished()) return kExitCannotRun;
  return sanitizer.errors == 0 ? kExitPassed : kExitFailed;
}

}  // namespace lb::lab
