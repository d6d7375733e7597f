#include "lab/child/child_process.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/child/student_program.h"
#include "lab/commands/sanitize.h"
#include "lab/runners/runner.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

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
    void operator()(RunnerEvent&) const {}  // the runner's own: its ChildNotes read it
  };
  std::visit(Fold{report}, event);
}

}  // namespace

std::string protocol_error_text(const std::string& protocol_error) {
  return "the check could not read its child's output: it wrote " + protocol_error;
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
    spec.runner->precheck(spec, file);
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
  report.child = run_with_time_limit(argv, time_limit_s, spec.runner->arrival_clock(mode));
  report.time_limit_s = time_limit_s;
  report.notes = spec.runner->child_notes(mode);
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
      if (report.notes)  // by when the line reached this process
        report.notes->read(event, index < report.child.out_line_s.size() ? report.child.out_line_s[index]
                                                                         : report.child.elapsed_s);
      else if (const auto* own = std::get_if<RunnerEvent>(&event))
        throw unknown_event(*own);  // a runner's line, and this runner has none
      fold(report, std::move(event));
    } catch (const ChildProtocolError& e) {
      if (report.protocol_error.empty()) report.protocol_error = e.what();  // the first: what went wrong first
    }
  }
  if (report.notes) report.notes->finish(spec, report);
  return report;
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

}  // namespace lb::lab
