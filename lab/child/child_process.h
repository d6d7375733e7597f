// The child process of `lab check|grade|profile`, as its parent sees it: the only process that
// touches the GPU and runs the student's code.
//
// The parent (run_child_process) never touches the GPU: it has the lab's runner check the file on
// the host (lab/runners/runner.h, Runner::precheck) to report compile errors, then starts
// `<command> lab run-child LAB_JSON FILE --mode M --events-fd 3`, hands it the keys of its mode's
// inputs on its standard input (lab/child/grade_keys.h: the grade's secret stays here), and reads
// the child's lines on file descriptor 3 (watchdog.h, kEventsFd), which no student code is given:
// one ChildEvent each (lab/child/child_event.h, where the messages and their JSON are), in the
// order the mode prescribes, folded into a ChildReport. The child's stdout and stderr are the
// student's output (a kernel's printf): shown capped, never parsed.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lab/child/child_event.h"
#include "lab/child/child_mode.h"
#include "lab/child/grade_keys.h"
#include "lab/child/watchdog.h"
#include "lab/spec/lab_spec.h"

namespace lb::lab {

// Exit statuses of `lab check` (and its child).
constexpr int kExitPassed = 0;
constexpr int kExitFailed = 1;      // a size failed, it did not compile, it timed out or crashed
constexpr int kExitBadInput = 2;    // unknown lab, missing file, bad lab.json
constexpr int kExitCannotRun = 3;   // no usable GPU here

struct CheckOptions {
  std::vector<std::string> runner;  // the command that runs `lab run-child ...`: layerbench itself
  std::uint64_t seed = 0;           // the grade's secret, every key derives from (fresh each check, never shown)
  bool line_info = false;           // compile the student's file with source lines
  bool sanitize = false;            // run the child under compute-sanitizer memcheck (lab/commands/sanitize.h)
};

// ChildReport::protocol_error as the student reads it, in one line.
std::string protocol_error_text(const std::string& protocol_error);

// The command check_submission starts the child with by default: this executable, or
// $LAYERBENCH_LAB_RUNNER (a command, split on spaces; for tests, which stand in a child that hangs).
std::vector<std::string> default_runner();

// As `lab run-child --mode` spells it: "check", "time", "profile", "environment".
const char* to_string(ChildMode mode);

struct ChildReport;

// What a lab's runner keeps of the events only it writes (Runner::child_notes): each event as it
// reached the parent, then, after the child's last line, what they change in the report.
class ChildNotes {
 public:
  virtual ~ChildNotes() = default;
  // `arrival_s`: when the line reached the parent, in seconds after the child started (its own
  // clock). ChildProtocolError when the event is out of place, or a RunnerEvent this runner does
  // not write (child_event.h's unknown_event).
  virtual void read(const ChildEvent& event, double arrival_s) = 0;
  virtual void finish(const LabSpec& spec, ChildReport& report) = 0;
};

// What the child said, event by event (child_event.h), and how it ended.
struct ChildReport {
  std::string no_gpu;         // why the check cannot run here; empty when it could
  std::string runner_unavailable;  // what the lab's runner needs and this machine lacks (RunnerUnavailable), one line
  std::string compile_error;  // the file did not compile (found before or by the child)
  std::map<std::string, SizeChecked> by_size;  // check size as written -> its outcome
  std::string error;          // what stopped the child (a CUDA error, with a hint), if it said
  std::optional<TimingEnvironment> environment;  // grade: the GPU, its ceilings and peaks
  std::vector<BenchmarkEvent> benchmarks;        // grade: one per benchmark size reached
  std::optional<Profiled> profiled;              // profile: the profiled run
  std::optional<StudentBuilt> built;             // the build of the student's file, when the child made one
  // The runner's own reading of its events (Runner::child_notes); nullptr when it has none.
  std::shared_ptr<ChildNotes> notes;
  // The first line the child wrote on its events channel that is no ChildEvent or is out of its
  // place (missing, extra, out of order: ChildProtocolError's text, naming the line or the field):
  // the check fails with it, and a grade earns no performance points.
  std::string protocol_error;
  ChildOutcome child;
  double time_limit_s = 0;  // 0: no child ran
  std::string sanitizer_log;  // options.sanitize: compute-sanitizer's log (lab/commands/sanitize.h parses it)
  // What the student's code printed, its stdout then its stderr (a device printf, a Python print):
  // at most 4 KiB of it, then a line saying how many bytes were not shown; empty when it printed
  // nothing. Shown to the student, never read as an event.
  std::string student_output() const;
  std::size_t sizes_passed() const;
  // The child was stopped at the time limit, killed by a signal, or exited with a status other
  // than pass or fail; why_stopped() says which, with its last line on stderr.
  bool ended_abnormally() const;
  std::string why_stopped() const;
};

// The student's file must be a regular file: UsageError "no such file: FILE", or "FILE: is a
// folder, not a kernel file" (a folder named by mistake, e.g. the lab's own).
void require_student_file(const std::filesystem::path& file);

// Checks the file on the host (the lab's Runner::precheck), then runs the child in `mode` under
// `time_limit_s`. UsageError when `file` is missing.
ChildReport run_child_process(const LabSpec& spec, const std::filesystem::path& file, ChildMode mode,
                              const CheckOptions& options, double time_limit_s);

struct ChildRequest {
  ChildMode mode = ChildMode::kCheck;
  GradeKeys keys;  // what the parent handed over on the child's standard input
  bool line_info = false;  // compile with source lines (for compute-sanitizer and ncu)
  bool exact_buffers = false;  // under compute-sanitizer: StudentBuild::exact_buffers
};
// The child: its events (child_event.h), one line each, to `out` (the events channel, never its
// stdout). Returns its exit status (the exit statuses above).
int run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request, std::FILE* out);
// `lab run-child`: the keys its parent wrote on `in` (to its end), and run_child with its events
// on `events_fd` (made close-on-exec first). UsageError when the keys cannot be read or the
// descriptor is not open.
GradeKeys read_grade_keys(std::FILE* in);
int run_child_with_channel(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                           int events_fd);

}  // namespace lb::lab
