// The trip process of the host trip (runner host-trip, labs/08-transfer): the only process that
// loads the student's library and runs its code, and one that never holds a key, a seed or
// anything the inputs derive from (docs/labs.md, "Which process runs what").
//
// The lab child (run_host_trip_child, trip_child.h) holds the grade's keys: it builds the student's
// file, measures the host link, then starts this process by fork and exec of layerbench
// (`layerbench lab run-helper host-trip`): a fresh image, so nothing of the child's memory comes with it; its
// argv names only the library, the student's file and two descriptors; its standard input is
// /dev/null; its environment is the child's, which never held a key (the parent hands the keys to
// the child on its standard input, grade_keys.h). It loads the library and answers commands on a
// socketpair (SOCK_SEQPACKET), one at a time:
//   open   (who, n): lab_host_alloc for a, b and c (c with a guard zone), lab_setup(n) (ours:
//          trip_ours.h, the same calls); replies whether each buffer is pinned.
//   run    (who, n): copies a, b and c's starting contents from the shared memory (a memfd the
//          child writes) into the student's buffers, sets c's guard and waits for the GPU; replies
//          "ready"; on "go", lab_trip, a device-wide wait, the launch errors; replies "ran" (the
//          child's clock and its end mark are between "go" and "ran"); then copies c and its guard
//          (and in check mode a and b as the trip left them) back into the shared memory and
//          replies "collected".
//   close  (who): lab_teardown, checked, and lab_host_free.
//   abandon(who): lab_teardown, its error ignored, and lab_host_free.
// A failed call's reply carries the student's message, and when the GPU context is unusable after
// it, why (cuda_context_fault). The child writes each trip's a and b into the shared memory only
// for that trip, after the last trip's "collected", and verifies c itself: this process never
// sees a key, and never sees a trip's data before that trip.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>

#include "lab/runners/host_trip/trip_event.h"

namespace lb::lab {

// A call of the trip's that failed, or a result that is wrong: what the student reads.
class TripError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Floats of c's guard zone after its n floats (64 KiB), and the value it holds.
constexpr std::int64_t kGuardFloats = 16384;
constexpr std::uint32_t kGuardBits = 0x7F8ABCDEu;  // a NaN no arithmetic produces

struct TripReply;  // a message of the trip process's (trip_process.cpp)

// The child's handle on its trip process.
class TripProcess {
 public:
  // Starts `program` (layerbench) as the trip process of `library` (built from `file`), with
  // shared memory for trips of up to `max_n` elements. std::runtime_error when it cannot start.
  TripProcess(const std::filesystem::path& program, const std::filesystem::path& library,
              const std::filesystem::path& file, std::int64_t max_n);
  // Closes the socket (the trip process exits) and waits for it.
  ~TripProcess();
  TripProcess(const TripProcess&) = delete;
  TripProcess& operator=(const TripProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Waits for the trip process to have loaded the library: StudentCompileError (student_program.h)
  // when it does not load or lacks a function.
  void wait_loaded();

  // The shared memory for a trip of n elements: a, b (n each) and c (n and its guard zone).
  std::span<float> a(std::int64_t n) const { return {memory_, static_cast<std::size_t>(n)}; }
  std::span<float> b(std::int64_t n) const { return {memory_ + max_n_, static_cast<std::size_t>(n)}; }
  std::span<float> c(std::int64_t n) const { return {memory_ + 2 * max_n_, static_cast<std::size_t>(n)}; }
  std::span<const float> c_guard(std::int64_t n) const {
    return {memory_ + 2 * max_n_ + n, static_cast<std::size_t>(kGuardFloats)};
  }

  // The commands above; TripError with the student's message when a call fails (the trip process
  // has then torn down and freed that trip's buffers); std::runtime_error when the trip process
  // stopped or wrote what the protocol does not allow.
  HostBuffers open(TripOf who, std::int64_t n, const std::string& size);
  // One trip on the shared memory's a, b and c. `started` is called between "ready" and "go",
  // `ended` on "ran", before any error is thrown. `inputs_back`: a and b as the trip left them come
  // back into the shared memory.
  template <class Started, class Ended>
  void run(TripOf who, std::int64_t n, bool inputs_back, Started started, Ended ended);
  void close(TripOf who);
  void abandon(TripOf who);
  // Why the GPU context is unusable, as the last failed call's reply said, else empty. Never
  // cleared: an unusable context stays so.
  const std::string& fault() const { return fault_; }

 private:
  void send(int op, TripOf who, std::int64_t n, bool inputs_back);
  TripReply receive(const char* expected);
  void start_run(TripOf who, std::int64_t n, bool inputs_back);
  void go();
  void finish_ran();
  void finish_collected();

  pid_t pid_ = -1;
  int socket_ = -1;
  float* memory_ = nullptr;
  std::size_t memory_bytes_ = 0;
  std::int64_t max_n_ = 0;
  std::string fault_;
};

template <class Started, class Ended>
void TripProcess::run(TripOf who, std::int64_t n, bool inputs_back, Started started, Ended ended) {
  start_run(who, n, inputs_back);  // waits for "ready"
  started();
  go();
  finish_ran();  // "ran": its error kept until the end mark is out
  ended();
  finish_collected();  // throws the trip's error, if any
}

// `layerbench lab run-helper host-trip` (HostTripRunner::run_helper): the trip process itself, serving `socket_fd` with the shared memory
// `memory_fd`; its exit status.
int run_trip_process(int socket_fd, int memory_fd, const std::filesystem::path& library,
                     const std::filesystem::path& file);

}  // namespace lb::lab
