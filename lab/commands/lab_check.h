// `layerbench lab check`: the student's kernel compiled, run on the lab's check sizes in a child
// process under a time limit, verified, and reported size by size.
//
// The parent (check_submission) never touches the GPU: it compiles the file on the host for
// sm_90 (a Python lab, or a host-code lab built by nvcc in the child: checks its rules) to report
// compile errors, then starts
// `<runner> lab run-child LAB_JSON FILE --seed S --mode M` and reads the child's lines: one
// ChildEvent each (lab/child/child_event.h, where the messages and their JSON are), folded into a
// ChildReport.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <map>
#include <optional>

#include "lab/child/child_event.h"
#include "lab/spec/lab_spec.h"
#include "lab/runners/host_trip/trip_clock.h"
#include "lab/child/watchdog.h"

namespace lb::lab {

// Exit statuses of `lab check` (and its child).
constexpr int kExitPassed = 0;
constexpr int kExitFailed = 1;      // a size failed, it did not compile, it timed out or crashed
constexpr int kExitBadInput = 2;    // unknown lab, missing file, bad lab.json
constexpr int kExitCannotRun = 3;   // no usable GPU here

struct CheckOptions {
  std::vector<std::string> runner;  // the command that runs `lab run-child ...`: layerbench itself
  std::uint64_t seed = 0;           // the inputs' seed (fresh each check, never shown)
  bool line_info = false;           // compile the student's file with source lines
  bool sanitize = false;            // run the child under compute-sanitizer memcheck (lab/commands/sanitize.h)
};

// ChildReport::protocol_error as the student reads it, in one line.
std::string protocol_error_text(const std::string& protocol_error);

// Check size i as the check's lines name it: "n = 257", "n = 16777216 (2^24)", "MxNxK = 17x33x65".
std::string check_size_label(const LabSpec& spec, std::size_t i);

// The runner check_submission uses by default: this executable, or $LAYERBENCH_LAB_RUNNER (a
// command, split on spaces; for tests, which stand in a child that hangs).
std::vector<std::string> default_runner();

// check: the check sizes; time: the benchmark sizes only, timed (`lab grade` runs it after a
// check that passed, each under its own time limit); profile: one run for a profiler.
enum class ChildMode { kCheck, kTime, kProfile };

// What the child said, event by event (child_event.h), and how it ended.
struct ChildReport {
  std::string no_gpu;         // why the check cannot run here; empty when it could
  std::string compile_error;  // the file did not compile (found before or by the child)
  std::map<std::string, SizeChecked> by_size;  // check size as written -> its outcome
  std::string error;          // what stopped the child (a CUDA error, with a hint), if it said
  std::optional<TimingEnvironment> environment;  // grade: the GPU, its ceilings and peaks
  std::vector<BenchmarkEvent> benchmarks;        // grade: one per benchmark size reached
  std::optional<Profiled> profiled;              // profile: the profiled run
  // A lab graded end to end (lab/runners/host_trip/trip_child.h): the build of the student's file, its trips as
  // the parent timed them from their marks (lab/runners/host_trip/trip_clock.h), and what its host buffers were.
  std::optional<StudentBuilt> built;
  TripClock trips;
  std::vector<HostBuffers> host_buffers;
  // The first line the child wrote that is no ChildEvent (ChildProtocolError's text, naming the
  // line or the field): the check fails with it, and a grade earns no performance points.
  std::string protocol_error;
  ChildOutcome child;
  double time_limit_s = 0;  // 0: no child ran
  std::string sanitizer_log;  // options.sanitize: compute-sanitizer's log (lab/commands/sanitize.h parses it)
  std::size_t sizes_passed() const;
  // The child was stopped at the time limit, killed by a signal, or exited with a status other
  // than pass or fail; why_stopped() says which, with its last line on stderr.
  bool ended_abnormally() const;
  std::string why_stopped() const;
};

// The student's file must be a regular file: UsageError "no such file: FILE", or "FILE: is a
// folder, not a kernel file" (a folder named by mistake, e.g. the lab's own).
void require_student_file(const std::filesystem::path& file);

// Checks the file on the host (precheck_student_file), then runs the child in `mode` under
// `time_limit_s`. UsageError when `file` is missing.
ChildReport run_child_process(const LabSpec& spec, const std::filesystem::path& file, ChildMode mode,
                              const CheckOptions& options, double time_limit_s);

// The check's lines ("  PASS  n = 257", "  FAIL  n = ...: why", a hint, a summary) to `out`;
// returns check_submission's exit status.
int print_check_report(const LabSpec& spec, const std::filesystem::path& file, const ChildReport& report,
                       std::FILE* out);

// Checks `file` against `spec`, printing per size "  PASS  n = 257" or "  FAIL  n = ...: why" and a
// summary to `out`. Returns an exit status above.
int check_submission(const LabSpec& spec, const std::filesystem::path& file, const CheckOptions& options,
                     std::FILE* out);

struct ChildRequest {
  ChildMode mode = ChildMode::kCheck;
  std::uint64_t seed = 0;
  bool line_info = false;  // compile with source lines (for compute-sanitizer and ncu)
  bool exact_buffers = false;  // under compute-sanitizer: StudentBuild::exact_buffers
};
// The child: its events (child_event.h), one line each, to `out`. Returns its exit status (the
// exit statuses above).
int run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request, std::FILE* out);

}  // namespace lb::lab
