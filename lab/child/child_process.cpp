#include "lab/child/child_process.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/usage_error.h"  // one_line
#include "lab/child/grade_keys.h"
#include "lab/child/key_holder.h"
#include "lab/child/student_program.h"
#include "lab/child/student_sandbox.h"
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

// At most this much of a line the student's code printed is quoted in a reason of ours.
constexpr std::size_t kQuotedLineBytes = 160;

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
  // The child's stderr is the student's output (a device printf, a Python print) as much as ours:
  // quoted as theirs, one line and short, never as a reason of ours.
  const std::string err = last_line(child.err);
  std::string stopped = "the check stopped (exit status " + std::to_string(child.exit_code) + ")";
  if (!err.empty())
    stopped += "; your code's last line on standard error: '" + one_line(err.substr(0, kQuotedLineBytes)) +
               (err.size() > kQuotedLineBytes ? "...'" : "'");
  return stopped;
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

// The lines the child must write for `mode`, in order (child_event.h): each check size's, or the
// environment and each benchmark size's, or the profiled run's. A last word (NoGpu, CompileFailed,
// CudaFailure, Failure) may end them early; nothing follows it. The build (StudentBuilt) may come
// once before them; a runner's own lines anywhere before the last word (its ChildNotes orders them).
class EventOrder {
 public:
  // `environment_apart`: a timing child's environment came from a child of its own (its line here
  // is an extra one).
  EventOrder(const LabSpec& spec, ChildMode mode, bool environment_apart) {
    if (mode == ChildMode::kCheck)
      for (const std::string& size : spec.check_size_texts) due_.push_back("size " + size);
    if (mode == ChildMode::kEnvironment) due_.push_back("environment");
    if (mode == ChildMode::kTime) {
      if (!environment_apart) due_.push_back("environment");
      for (const Shape& shape : spec.benchmark_sizes) due_.push_back("benchmark " + spec.workload->size_label(shape));
    }
    if (mode == ChildMode::kProfile) due_.push_back("profiled " + spec.workload->size_label(spec.benchmark_sizes.front()));
  }
  // ChildProtocolError when `event` is out of place.
  void read(const ChildEvent& event) {
    if (!last_word_.empty()) throw ChildProtocolError("a line after its last ('" + last_word_ + "')");
    const std::string step = step_of(event);
    if (step.empty()) return;  // a runner's own line
    if (step == "built") {
      if (next_ > 0 || built_) throw ChildProtocolError("a build line after its first line");
      built_ = true;
      return;
    }
    if (step.starts_with("end ")) {
      last_word_ = step.substr(4);
      return;
    }
    if (next_ == due_.size()) throw ChildProtocolError("an extra line ('" + step + "') after its last");
    if (step != due_[next_])
      throw ChildProtocolError("'" + step + "' where '" + due_[next_] + "' was due");
    ++next_;
  }
  // ChildProtocolError when the child exited by itself (pass or fail) with a line still due: it
  // could only have been lost, never skipped. A child stopped, crashed or exiting otherwise is
  // reported as such (ChildReport::why_stopped).
  void finish(const ChildOutcome& child) const {
    if (last_word_.empty() && next_ < due_.size() && !child.timed_out && child.exited &&
        (child.exit_code == kExitPassed || child.exit_code == kExitFailed))
      throw ChildProtocolError("no '" + due_[next_] + "' line: it ended without it");
  }

 private:
  static std::string step_of(const ChildEvent& event) {
    struct Step {
      std::string operator()(const NoGpu&) const { return "end no GPU"; }
      std::string operator()(const CompileFailed&) const { return "end compile error"; }
      std::string operator()(const CudaFailure&) const { return "end CUDA error"; }
      std::string operator()(const Failure&) const { return "end error"; }
      std::string operator()(const SizeChecked& e) const { return "size " + e.size; }
      std::string operator()(const TimingEnvironment&) const { return "environment"; }
      std::string operator()(const BenchmarkTimed& e) const { return "benchmark " + e.size; }
      std::string operator()(const BenchmarkFailed& e) const { return "benchmark " + e.size; }
      std::string operator()(const Profiled& e) const { return "profiled " + e.size; }
      std::string operator()(const StudentBuilt&) const { return "built"; }
      std::string operator()(const RunnerEvent&) const { return {}; }
    };
    return std::visit(Step{}, event);
  }
  std::vector<std::string> due_;
  std::size_t next_ = 0;
  bool built_ = false;
  std::string last_word_;
};

// At most this much of what the student's code printed is shown (ChildReport::student_output).
constexpr std::size_t kShownOutputBytes = 4096;

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

namespace {

// A child that only queries the GPU and measures its ceilings (a second or two) has this long.
constexpr double kEnvironmentTimeLimitS = 120;

// Starts the child in `mode` on `file` and reads its events into `report`.
void run_and_read(const LabSpec& spec, const fs::path& file, ChildMode mode, const CheckOptions& options,
                  double time_limit_s, ChildReport& report) {
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
  // No seed on the command line (which /proc shows to any code in the child): the keys its mode
  // needs, derived here from the grade's secret, go to its standard input (grade_keys.h). Its
  // events come on kEventsFd; its stdout and stderr are the student's output.
  for (const std::string& word : {std::string("lab"), std::string("run-child"), (spec.dir / "lab.json").string(),
                                  file.string(), std::string("--mode"), std::string(to_string(mode)),
                                  std::string("--events-fd"), std::to_string(kEventsFd)})
    argv.push_back(word);
  if (options.line_info || options.sanitize) argv.push_back("--line-info");  // the sanitizer names file:line
  if (options.sanitize) argv.push_back("--exact-buffers");
  // The isolation the parent chose, for the processes the child starts to run student code.
  argv.push_back("--student-isolation");
  argv.push_back(isolation_word(student_isolation()));
  report.child = run_with_time_limit(argv, time_limit_s, spec.runner->arrival_clock(mode), ChildChannel::kEvents,
                                     GradeKeys::derive(options.seed, spec, mode).to_text());
  // Nothing the student's code started outlives its child (a setsid daemon that would rewrite
  // the grade's outputs, a process that loads the GPU while the next child times): every process
  // of its uid, and what this process adopted as the `lab` parent's subreaper.
  end_student_processes(student_isolation());
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

  // Only the events channel is read: nothing the student's code prints (a device printf, a Python
  // print, on either stream) is ever parsed. Every line there is an event, in its place, or the
  // child's report is not trusted (protocol_error).
  EventOrder order(spec, mode, mode == ChildMode::kTime && spec.runner->environment_apart());
  const auto first_error = [&report](const ChildProtocolError& e) {
    if (report.protocol_error.empty()) report.protocol_error = e.what();  // the first: what went wrong first
  };
  std::istringstream lines(report.child.events);
  std::size_t index = 0;
  for (std::string line; std::getline(lines, line); ++index) {
    try {
      ChildEvent event = parse_child_event(line);
      order.read(event);
      if (report.notes)  // by when the line reached this process
        report.notes->read(event, index < report.child.event_line_s.size() ? report.child.event_line_s[index]
                                                                           : report.child.elapsed_s);
      else if (const auto* own = std::get_if<RunnerEvent>(&event))
        throw unknown_event(*own);  // a runner's line, and this runner has none
      fold(report, std::move(event));
    } catch (const ChildProtocolError& e) {
      first_error(e);
    }
  }
  try {
    order.finish(report.child);
  } catch (const ChildProtocolError& e) {
    first_error(e);
  }
  if (report.notes) report.notes->finish(spec, report);
}

}  // namespace

const char* to_string(ChildMode mode) {
  switch (mode) {
    case ChildMode::kCheck: return "check";
    case ChildMode::kTime: return "time";
    case ChildMode::kProfile: return "profile";
    case ChildMode::kEnvironment: return "environment";
  }
  return "check";
}

ChildReport run_child_process(const LabSpec& spec, const fs::path& given, ChildMode mode, const CheckOptions& options,
                              double time_limit_s) {
  require_student_file(given);
  // This process holds the grade's secret: nothing it starts (the child, a compiler, and theirs)
  // may read its memory (key_holder.h).
  make_key_holder_undumpable();
  // A file named "-x.cu" would reach the child, nvcc and NVRTC (which takes a program's name as an
  // argument of its own) as an option: "./-x.cu" is the same file.
  const fs::path file = given.string().starts_with("-") ? fs::path(".") / given : given;
  ChildReport report;
  try {
    spec.runner->precheck(spec, file);
  } catch (const StudentCompileError& e) {
    report.compile_error = e.what();
    return report;
  } catch (const RunnerUnavailable& e) {
    report.runner_unavailable = e.what();
    return report;
  }
  if (mode == ChildMode::kTime && spec.runner->environment_apart()) {
    // The peaks and ceilings from a child that loads no student code: nothing the student's code
    // did can have touched them.
    ChildReport measured;
    run_and_read(spec, file, ChildMode::kEnvironment, {.runner = options.runner, .seed = options.seed},
                 kEnvironmentTimeLimitS, measured);
    if (!measured.no_gpu.empty() || measured.ended_abnormally() || !measured.protocol_error.empty() ||
        !measured.error.empty()) {
      report.no_gpu = measured.no_gpu;
      report.protocol_error = "no usable environment line: " +
                              (!measured.protocol_error.empty() ? measured.protocol_error
                               : !measured.error.empty()        ? measured.error
                               : !measured.no_gpu.empty()       ? measured.no_gpu
                                                                : measured.why_stopped());
      return report;
    }
    report.environment = std::move(measured.environment);
  }
  run_and_read(spec, file, mode, options, time_limit_s, report);
  if (mode == ChildMode::kTime && report.protocol_error.empty())
    if (const std::string why = spec.runner->environment_refusal(spec, report.environment); !why.empty())
      report.protocol_error = why;
  return report;
}

bool ChildReport::ended_abnormally() const {
  if (time_limit_s == 0) return false;  // no child ran (a compile error found first, or never asked)
  return child.timed_out || !child.exited || (child.exit_code != kExitPassed && child.exit_code != kExitFailed);
}
std::string ChildReport::why_stopped() const { return why_child_stopped(child, time_limit_s); }

std::string ChildReport::student_output() const {
  std::string shown = child.out + child.err;
  const std::size_t printed = child.out_bytes + child.err_bytes;
  if (shown.size() > kShownOutputBytes) shown.resize(kShownOutputBytes);
  if (printed > shown.size())
    shown += "\n[... " + std::to_string(printed - shown.size()) + " more bytes not shown: " +
             std::to_string(printed) + " in all]\n";
  return shown;
}

std::size_t ChildReport::sizes_passed() const {
  std::size_t passed = 0;
  for (const auto& [size, checked] : by_size) passed += checked.passed;
  return passed;
}

}  // namespace lb::lab
