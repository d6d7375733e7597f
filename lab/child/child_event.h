// What the child of `lab check|grade|profile` (`layerbench lab run-child`, lab_child.cpp) tells its
// parent (child_process.cpp): one JSON object per line on its events channel (file descriptor 3,
// never its stdout, where a kernel's printf goes), each line one ChildEvent. The
// child writes every line through to_json; the parent reads each with parse_child_event and folds
// the events into its ChildReport (lab_check.h).
//
// The lines, one per kind (fields marked "optional" may be absent; every other field must be there,
// and every field present must have its type):
//   NoGpu               {"event": "no_gpu", "reason": "..."}                            then exit 3
//   CompileFailed       {"event": "compile_error", "message": "..."}                    then exit 1
//   SizeChecked         {"size": "257", "passed": true}                     one per check size, in order
//                       {"size": "257", "passed": false, "feedback": "element ..."}   (feedback optional)
//   CudaFailure         {"cuda_error": "an illegal memory access ... (CUDA_ERROR_ILLEGAL_ADDRESS)"}  then exit 1
//   Failure             {"error": "..."}                                 any other failure, then exit 1
// time mode:
//   TimingEnvironment   {"event": "environment", "gpu": "...", "ceilings": {"copy_gbps": ...,
//                        "sgemm_gflops": ...}, "peaks": {...} or null, "cache_mode": "cold"}
//                       the GPU, its ceilings (harness/results_json.h's ceilings_json), its theoretical
//                       peaks (peaks_json(), harness/device_peaks.h; optional: null or absent when not
//                       known, and the grade then checks no rate), and how the L2 was left before each
//                       sample ("cold": flushed; "hot": not; optional: absent reads as hot, the looser
//                       bound)
//   BenchmarkTimed      {"benchmark": "2^26", "student": {figures}, "runtime": {figures},
//                        "samples_verified": 3, "input_reset_ms": 0.1, "sample_verify_ms": 9.5,
//                        "handover_ms": 12.1}
//                       one per benchmark size; in place of "runtime" (ours: the lab's baseline
//                       layer's kernel), "runtime_error": "..." when ours could not be timed;
//                       samples_verified, input_reset_ms and sample_verify_ms (each sample's fresh
//                       inputs and its verification: lab/child/fresh_inputs.h; lab 8: each timed
//                       trip's, lab/runners/host_trip/trip_child.cpp) optional, 0 when absent;
//                       handover_ms (lab 8: the median time the child took to write a timed trip's
//                       a and b into the shared memory after its start mark, inside both trips'
//                       clocks; trip_child.h) optional, 0 when absent, written only when not 0
//   BenchmarkFailed     {"benchmark": "2^26", "error": "..."}   the student's kernel was wrong or untimed
//   figures             {"median_ms": ..., "samples": 40, "noise": ..., "gbps": ..., "gflops": ...,
//                        "stop": "noise reached"}   median_ms and samples required, the others optional
// profile mode:
//   Profiled            {"profiled": "2^26", "passed": true} (or false, with "feedback") after one
//                       verified run at the first benchmark size (the launch a profiler records)
// a child that builds the student's file itself (the host trip), besides the lines above:
//   StudentBuilt        {"event": "built", "what": "nvcc -O3 -arch=sm_90 transfer.cu", "ms": 1890.2}
//                       the build of the student's file, once, before anything runs (a one-time
//                       cost: shown, never graded)
// a runner's own lines (Runner::child_notes):
//   RunnerEvent         {"event": "<a name none of the above has>", ...}   kept whole for the lab's
//                       runner's ChildNotes, which reads its own (the host trip's trip marks and
//                       host buffers: lab/runners/host_trip/trip_event.h)
//
// A line that is not JSON, not an object, none of these, or one of these with a field missing or of
// the wrong type is a ChildProtocolError, and so is a RunnerEvent that the lab's runner does not
// know (none, for a runner without ChildNotes): the parent reports it and fails the check (or the
// grade's performance part); it never passes on a line it could not read.
#pragma once
#include <cstddef>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace lb::lab {

struct NoGpu {
  std::string reason;
  friend bool operator==(const NoGpu&, const NoGpu&) = default;
};
struct CompileFailed {
  std::string message;  // what the student reads: the compiler's lines
  friend bool operator==(const CompileFailed&, const CompileFailed&) = default;
};
struct SizeChecked {
  std::string size;  // the check size as lab.json writes it ("2^24")
  bool passed = false;
  std::string feedback;  // why not, when it did not pass; empty when none was given
  friend bool operator==(const SizeChecked&, const SizeChecked&) = default;
};
struct CudaFailure {
  std::string error;  // CUDA's text and error name, without where in layerbench it surfaced
  friend bool operator==(const CudaFailure&, const CudaFailure&) = default;
};
struct Failure {
  std::string error;
  friend bool operator==(const Failure&, const Failure&) = default;
};
struct TimingEnvironment {
  std::string gpu;
  nlohmann::json ceilings = nlohmann::json::object();  // ceilings_json(): {} when none was measured
  nlohmann::json peaks;                                // peaks_json(), or null when not known
  std::string cache_mode = "hot";                      // "cold" or "hot"
  friend bool operator==(const TimingEnvironment&, const TimingEnvironment&) = default;
};
// One kernel timed at one size, as the harness measured it.
struct Figures {
  double median_ms = 0;
  std::size_t samples = 0;
  double noise = 0;  // relative standard deviation of the samples
  double gbps = 0, gflops = 0;
  std::string stop;  // why sampling stopped (harness/sampling.h's to_string)
  friend bool operator==(const Figures&, const Figures&) = default;
};
struct BenchmarkTimed {
  std::string size;  // the workload's size label ("67108864")
  Figures student;
  std::optional<Figures> ours;  // the baseline layer's kernel; nullopt when it could not be timed:
  std::string ours_error;       // then why
  std::size_t samples_verified = 0;
  double input_reset_ms = 0;
  double sample_verify_ms = 0;
  double handover_ms = 0;
  friend bool operator==(const BenchmarkTimed&, const BenchmarkTimed&) = default;
};
struct BenchmarkFailed {
  std::string size;
  std::string error;
  friend bool operator==(const BenchmarkFailed&, const BenchmarkFailed&) = default;
};
struct Profiled {
  std::string size;
  bool passed = false;
  std::string feedback;
  friend bool operator==(const Profiled&, const Profiled&) = default;
};

struct StudentBuilt {
  std::string what;  // the compile, as the student would type it
  double ms = 0;
  friend bool operator==(const StudentBuilt&, const StudentBuilt&) = default;
};
// A line of the lab's runner's own: its "event" and the whole line, which the runner's ChildNotes
// reads (EventFields below).
struct RunnerEvent {
  std::string event;
  nlohmann::json line;  // the whole object, "event" included
  friend bool operator==(const RunnerEvent&, const RunnerEvent&) = default;
};

using ChildEvent = std::variant<NoGpu, CompileFailed, SizeChecked, CudaFailure, Failure, TimingEnvironment,
                                BenchmarkTimed, BenchmarkFailed, Profiled, StudentBuilt, RunnerEvent>;
using BenchmarkEvent = std::variant<BenchmarkTimed, BenchmarkFailed>;

// A line the parent cannot read as a ChildEvent: what() says why, naming the field.
class ChildProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads the fields of one line of kind `what` ("size", "benchmark", a runner's "trip"); every
// failure is a ChildProtocolError naming the field.
class EventFields {
 public:
  // `prefix`: where these fields are in the line ("student." for a benchmark's figures).
  EventFields(const nlohmann::json& j, std::string what, std::string prefix = "")
      : j_(j), what_(std::move(what)), prefix_(std::move(prefix)) {}
  [[noreturn]] void fail(const std::string& key, const std::string& why) const;
  bool has(const char* key) const { return j_.contains(key); }
  const nlohmann::json& get(const char* key) const;
  std::string text(const char* key) const;
  std::string text_or(const char* key, const std::string& absent) const { return has(key) ? text(key) : absent; }
  bool boolean(const char* key) const;
  double number(const char* key) const;
  double number_or(const char* key, double absent) const { return has(key) ? number(key) : absent; }
  std::size_t count(const char* key) const;
  std::size_t count_or(const char* key, std::size_t absent) const { return has(key) ? count(key) : absent; }
  const nlohmann::json& object(const char* key) const;
  // One of two words: true for `first`, false for `second`; anything else names the field.
  bool one_of(const char* key, const char* first, const char* second) const;

 private:
  const nlohmann::json& j_;
  std::string what_, prefix_;
};

// The error for a runner's line that the lab's runner does not know ("an unknown event 'x'").
ChildProtocolError unknown_event(const RunnerEvent& event);

nlohmann::json to_json(const ChildEvent& event);
// The event a line's JSON object is; ChildProtocolError when it is none.
ChildEvent child_event_from_json(const nlohmann::json& line);
// One line of the child's stdout (without its newline); ChildProtocolError when it is not JSON or
// not an event.
ChildEvent parse_child_event(const std::string& line);
// Writes `event` to `out` as one line, flushed (text that is not UTF-8, a compiler's echo of the
// student's file, with replacement characters rather than failing the line).
void write_child_event(std::FILE* out, const ChildEvent& event);

}  // namespace lb::lab
