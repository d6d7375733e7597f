#include "lab/commands/lab_check.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/grading/feedback.h"
#include "lab/commands/sanitize.h"
#include "lab/child/student_program.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;


void print_compile_error(std::FILE* out, const LabSpec& spec, const fs::path& file, const std::string& message) {
  const bool python = is_python_lab(spec);
  std::fprintf(out, "%s %s:\n", file.c_str(), python ? "is not a lab file the runner can use" : "does not compile");
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) std::fprintf(out, "  %s\n", line.c_str());
  if (spec.runner == LabRunner::kNvccHost)
    return (void)std::fprintf(out,
                              "FAIL: %s breaks the lab's rules or does not build (its README.md says what the file "
                              "may contain and call)\n",
                              file.filename().c_str());
  if (python)
    return (void)std::fprintf(out,
                              "FAIL: %s breaks the Python lab's rules or does not compile (it may define @cuda.jit "
                              "kernels, import numba and math, and assign constants; nothing else runs)\n",
                              file.filename().c_str());
  std::fprintf(out,
               "FAIL: compile error (the check compiles %s alone, as device code: no host code, no host headers, "
               "no library calls)\n",
               file.filename().c_str());
}

std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string last;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) last = line;
  return last;
}

// Why the child stopped before reporting a size: the time limit, a signal, or its own error.
std::string why_child_stopped(const ChildOutcome& child, double limit_s) {
  char text[256];
  if (child.timed_out) {
    std::snprintf(text, sizeof text, "stopped after %g s: the kernel did not finish (an infinite loop?)", limit_s);
    return text;
  }
  if (!child.exited) {
    std::snprintf(text, sizeof text, "the check crashed (signal %d, %s)", child.signal, strsignal(child.signal));
    return text;
  }
  const std::string err = last_line(child.err);
  return "the check stopped (exit status " + std::to_string(child.exit_code) + ")" + (err.empty() ? "" : ": " + err);
}

std::string cuda_error_text(const std::string& error) {
  std::string text = "CUDA error: " + error;
  if (error.find("ILLEGAL_ADDRESS") != std::string::npos || error.find("MISALIGNED") != std::string::npos)
    text += " — does a thread read or write past the end of an array (a missing bounds check)?";
  else if (error.find("LAUNCH_OUT_OF_RESOURCES") != std::string::npos)
    text += " — the kernel needs more registers or shared memory than this block size allows";
  return text;
}

}  // namespace

std::string protocol_error_text(const std::string& protocol_error) {
  return "the check could not read its child's output: it wrote " + protocol_error;
}

namespace {

// Adds one event to what the parent knows of the child's run.
void fold(ChildReport& report, ChildEvent event) {
  struct Fold {
    ChildReport& r;
    void operator()(NoGpu& e) const { r.no_gpu = std::move(e.reason); }
    void operator()(CompileFailed& e) const { r.compile_error = std::move(e.message); }
    void operator()(SizeChecked& e) const {
      const std::string size = e.size;
      r.by_size[size] = std::move(e);
    }
    void operator()(CudaFailure& e) const { r.error = cuda_error_text(e.error); }
    void operator()(Failure& e) const { r.error = std::move(e.error); }
    void operator()(TimingEnvironment& e) const { r.environment = std::move(e); }
    void operator()(BenchmarkTimed& e) const { r.benchmarks.emplace_back(std::move(e)); }
    void operator()(BenchmarkFailed& e) const { r.benchmarks.emplace_back(std::move(e)); }
    void operator()(Profiled& e) const { r.profiled = std::move(e); }
    void operator()(StudentBuilt& e) const { r.built = std::move(e); }
    void operator()(TripMark&) const {}  // timed where it arrives (run_child_process)
    void operator()(HostBuffers& e) const { r.host_buffers.push_back(std::move(e)); }
  };
  std::visit(Fold{report}, event);
}

}  // namespace

std::string check_size_label(const LabSpec& spec, std::size_t i) {
  const std::string label = spec.workload->size_label(spec.check_sizes[i]);
  std::string text = std::string(to_string(spec.workload->size_form())) + " = " + label;
  if (spec.check_size_texts[i] != label) text += " (" + spec.check_size_texts[i] + ")";
  return text;
}

std::vector<std::string> default_runner() {
  if (const char* runner = std::getenv("LAYERBENCH_LAB_RUNNER"); runner && *runner) {
    std::istringstream words(runner);
    std::vector<std::string> argv;
    for (std::string w; words >> w;) argv.push_back(w);
    return argv;
  }
  return {fs::read_symlink("/proc/self/exe").string()};
}

void require_student_file(const fs::path& file) {
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) return;
  if (fs::is_directory(file, ec)) throw UsageError(file.string() + ": is a folder, not a kernel file");
  throw UsageError("no such file: " + file.string());
}

ChildReport run_child_process(const LabSpec& spec, const fs::path& given, ChildMode mode, const CheckOptions& options,
                              double time_limit_s) {
  require_student_file(given);
  // A file named "-x.cu" would reach the child, nvcc and NVRTC (which takes a program's name as an
  // argument of its own) as an option: "./-x.cu" is the same file.
  const fs::path file = given.string().starts_with("-") ? fs::path(".") / given : given;
  ChildReport report;
  try {
    precheck_student_file(spec, file);
  } catch (const StudentCompileError& e) {
    report.compile_error = e.what();
    return report;
  }
  std::vector<std::string> argv = options.runner;
  fs::path sanitizer_log;
  if (options.sanitize) {  // memcheck around the child, its report in a log file (sanitize.h)
    const ToolLookup tool = find_cuda_tool("compute-sanitizer");
    if (!tool.found()) throw std::runtime_error(tool.why_not);
    sanitizer_log = temp_log_path("memcheck");
    argv = sanitizer_prefix(tool.path, sanitizer_log);
    argv.insert(argv.end(), options.runner.begin(), options.runner.end());
    time_limit_s = sanitize_time_limit(time_limit_s);
  }
  const char* mode_name = mode == ChildMode::kTime ? "time" : mode == ChildMode::kProfile ? "profile" : "check";
  for (const std::string& word : {std::string("lab"), std::string("run-child"), (spec.dir / "lab.json").string(),
                                  file.string(), std::string("--seed"), std::to_string(options.seed),
                                  std::string("--mode"), std::string(mode_name)})
    argv.push_back(word);
  if (options.line_info || options.sanitize) argv.push_back("--line-info");  // the sanitizer names file:line
  if (options.sanitize) argv.push_back("--exact-buffers");
  // A trip graded end to end is timed by when its marks reach this process: stamped as they come.
  const bool trips_timed_here = graded_end_to_end(spec) && mode == ChildMode::kTime;
  report.child = run_with_time_limit(argv, time_limit_s, trips_timed_here ? ArrivalClock::kSpin : ArrivalClock::kSleep);
  report.time_limit_s = time_limit_s;
  if (options.sanitize) {
    std::ifstream log(sanitizer_log);
    std::stringstream text;
    text << log.rdbuf();
    report.sanitizer_log = text.str();
    std::error_code ec;
    fs::remove(sanitizer_log, ec);
  }

  std::istringstream lines(report.child.out);
  std::size_t index = 0;
  for (std::string line; std::getline(lines, line); ++index) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // a blank line says nothing
    try {
      ChildEvent event = parse_child_event(line);
      // A trip's mark is timed by when it reached this process (lab/runners/host_trip/trip_clock.h).
      if (const auto* mark = std::get_if<TripMark>(&event))
        report.trips.mark(*mark, index < report.child.out_line_s.size() ? report.child.out_line_s[index]
                                                                        : report.child.elapsed_s);
      fold(report, std::move(event));
    } catch (const ChildProtocolError& e) {
      if (report.protocol_error.empty()) report.protocol_error = e.what();  // the first: what went wrong first
    }
  }
  if (graded_end_to_end(spec)) time_trips_by_parent_clock(spec, report);
  return report;
}

int print_check_report(const LabSpec& spec, const fs::path& file, const ChildReport& report, std::FILE* out) {
  if (!report.no_gpu.empty()) {
    std::fprintf(out, "cannot run the check here: no usable GPU (%s)\n", report.no_gpu.c_str());
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
                                                               : why_child_stopped(report.child, report.time_limit_s);
      std::fprintf(out, "  FAIL  %s: %s\n", label.c_str(), why.c_str());
      stopped = true;
    }
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

bool ChildReport::ended_abnormally() const {
  if (time_limit_s == 0) return false;  // no child ran (a compile error found first, or never asked)
  return child.timed_out || !child.exited || (child.exit_code != kExitPassed && child.exit_code != kExitFailed);
}
std::string ChildReport::why_stopped() const { return why_child_stopped(child, time_limit_s); }

std::size_t ChildReport::sizes_passed() const {
  std::size_t passed = 0;
  for (const auto& [size, checked] : by_size) passed += checked.passed;
  return passed;
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
  if (!options.sanitize || !report.no_gpu.empty() || !report.compile_error.empty()) return status;
  const SanitizerReport sanitizer = parse_sanitizer_log(report.sanitizer_log);
  for (const std::string& line : sanitizer_lines(sanitizer)) std::fprintf(out, "%s\n", line.c_str());
  if (status != kExitPassed) return status;
  if (!sanitizer.finished()) return kExitCannotRun;
  return sanitizer.errors == 0 ? kExitPassed : kExitFailed;
}

}  // namespace lb::lab
