// The trip process of the host trip (runner host-trip, labs/08-transfer): the only process that
// loads the student's library and runs its code, and one that never holds a key, a seed or
// anything the inputs derive from (docs/labs.md, "Which process runs what"). Our trip runs in a
// trip process of its own, of the same program and protocol, that never loads a student's library
// (ours only), so that nothing of the student's runs beside it (docs/labs.md, "What grading
// guards against": ours slowed down).
//
// The lab child (run_host_trip_child, trip_child.h) holds the grade's keys: it builds the student's
// file, measures the host link, then starts this process by fork and exec of layerbench
// (`layerbench lab run-helper host-trip LIBRARY FILE ...`, or `... host-trip --ours ...`): a fresh
// image, so nothing of the child's memory comes with it. Before the exec the forked process enters
// the student's sandbox (lab/child/student_sandbox.h: its own process group, the student's uid
// where there is one, no capability, the seccomp filter with no new processes); its HOME and
// TMPDIR are a folder of its own, handed to the student, and so is the built library; its
// environment is PATH, LD_LIBRARY_PATH, HOME, TMPDIR and the CUDA_ and NV_ variables (CUDA's and
// compute-sanitizer's), nothing else of the child's; its argv names only the library, the
// student's file, two descriptors and the largest trip; its standard input is /dev/null.
//
// The trip's data live in shared memory that both map: a memfd the child makes, with a, b and c
// (and c's guard zone after its n floats) each in page-aligned regions of their own. The pointers
// lab_trip gets ARE those regions: the buffers are the runner's. lab_host_alloc still says which
// kind of memory the student wants: it is called once per buffer at open; where it returns pinned
// memory, the runner gives it back (lab_host_free) and page-locks the shared region instead
// (cudaHostRegister; cudaHostUnregister at close); pageable, the region is used as it is.
//
// It answers commands on a socketpair (SOCK_SEQPACKET), one at a time:
//   open   (who, n): lab_host_alloc for a, b and c (c with its guard zone), each given back and
//          the region registered where it was pinned, then lab_setup(n) (ours: trip_ours.h, the
//          same calls); replies whether each region is pinned.
//   run    (who, n): waits for the GPU (whatever is left over: a kernel still running from
//          lab_setup or the trip before), replies "ready"; on "go", lab_trip on the regions, a
//          device-wide wait, the launch errors; replies "ran", or "failed" with the error.
//   close  (who): lab_teardown, checked, the regions unregistered.
//   abandon(who): lab_teardown, its error ignored, the regions unregistered.
// A failed call's reply carries the student's message, and when the GPU context is unusable after
// it, why (cuda_context_fault).
//
// The child owns each trip's timing and data (trip_child.cpp): before "run" it poisons c and sets
// the guard (nothing secret); between "ready" and "go" it emits the start mark and only then writes
// the trip's a and b into the shared memory (so nothing of them can be moved before the clock
// starts: the hand-over is in both trips' clocks alike); on "ran" it reads a keyed sample of c
// (trip_sample.h) before it emits the end mark, and then verifies the guard and all of c (and, in
// check mode, a and b unchanged) in the shared memory itself. This process never sees a key, and
// never sees a trip's data before that trip's clock has started.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/runners/host_trip/trip_event.h"
#include "lab/runners/host_trip/trip_sample.h"

namespace lb::lab {

// A call of the trip's that failed, or a result that is wrong: what the student reads.
class TripError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Floats of c's guard zone after its n floats (64 KiB), and the value it holds.
constexpr std::int64_t kGuardFloats = 16384;
constexpr std::uint32_t kGuardBits = 0x7F8ABCDEu;  // a NaN no arithmetic produces

// Where a, b and c (with its guard zone) lie in the shared memory of trips of up to max_n
// elements: byte offsets, each a whole number of pages from the start, and the memory's size.
struct TripLayout {
  std::int64_t max_n = 0;
  std::size_t a = 0, b = 0, c = 0, bytes = 0;
};
TripLayout trip_layout(std::int64_t max_n);

struct TripReply;  // a message of the trip process's (trip_process.cpp)
class WorkingFolder;

// The child's handle on its trip process.
class TripProcess {
 public:
  // Starts `program` (layerbench) as the trip process of `library` (built from `file`), with
  // shared memory for trips of up to `max_n` elements. std::runtime_error when it cannot start.
  TripProcess(const std::filesystem::path& program, const std::filesystem::path& library,
              const std::filesystem::path& file, std::int64_t max_n);
  // Starts it for our trip alone: no student's library is loaded in it.
  TripProcess(const std::filesystem::path& program, std::int64_t max_n);
  // end(), its error ignored.
  ~TripProcess();
  TripProcess(const TripProcess&) = delete;
  TripProcess& operator=(const TripProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool ours_only() const { return ours_only_; }
  // Waits for the trip process to have loaded the library: StudentCompileError (student_program.h)
  // when it does not load or lacks a function.
  void wait_loaded();

  // The shared memory for a trip of n elements: a, b (n each), c (n) and its guard zone.
  std::span<float> a(std::int64_t n) const { return region(layout_.a, n); }
  std::span<float> b(std::int64_t n) const { return region(layout_.b, n); }
  std::span<float> c(std::int64_t n) const { return region(layout_.c, n); }
  std::span<float> c_guard(std::int64_t n) const {
    return {region(layout_.c, n).data() + n, static_cast<std::size_t>(kGuardFloats)};
  }

  // The commands above; TripError with the student's message when a call fails (the trip process
  // has then torn down that trip); std::runtime_error when the trip process stopped or wrote what
  // the protocol does not allow.
  HostBuffers open(TripOf who, std::int64_t n, const std::string& size);
  // One trip on the shared memory, whose c and guard the caller has reset: on "ready", `started`
  // (the start mark), then `hand_over` (a and b written), then "go"; on "ran", `sample` read in c,
  // then `ended` (the end mark). Where the sample finds c not right, the child watches it for up to
  // a second: c finished meanwhile means the "ran" came before c was written: TripError with the
  // sample's line, and the process is out of step (its next reply may be the trip's real "ran");
  // c still not right is a wrong result: `ended`, and the caller's full verification explains it.
  // TripError with the trip's error on "failed", before `ended`.
  template <class Started, class HandOver, class Ended>
  void run(TripOf who, std::int64_t n, const EndSample& sample, Started started, HandOver hand_over, Ended ended);
  void close(TripOf who);
  void abandon(TripOf who);
  // Why the GPU context is unusable, as the last failed call's reply said, else empty. Never
  // cleared: an unusable context stays so.
  const std::string& fault() const { return fault_; }
  // True once a "ran" came before c was written: its replies can no longer be matched with the
  // commands (the real "ran" may come later), so nothing more is asked of it.
  bool out_of_step() const { return out_of_step_; }

  // Closes the socket (the trip process exits when it reads the end), waits for it a few seconds,
  // then kills its process group (a student's thread or exit handler that keeps it alive) and reaps
  // it. Returns how it ended ("" when it exited with status 0). Once; later calls return "".
  std::string end();

 private:
  void start(const std::filesystem::path& program, std::vector<std::string> words,
             const std::vector<std::filesystem::path>& handed);
  std::span<float> region(std::size_t offset, std::int64_t n) const;
  void send(int op, TripOf who, std::int64_t n);
  TripReply receive(const char* expected);
  void start_run(TripOf who, std::int64_t n);
  void go();
  void finish_ran(std::int64_t n, const EndSample& sample);

  bool ours_only_ = false;
  pid_t pid_ = -1;
  int socket_ = -1;
  char* memory_ = nullptr;
  TripLayout layout_;
  std::unique_ptr<WorkingFolder> home_;  // its HOME and TMPDIR, removed after it has ended
  std::string fault_;
  bool out_of_step_ = false;
};

template <class Started, class HandOver, class Ended>
void TripProcess::run(TripOf who, std::int64_t n, const EndSample& sample, Started started, HandOver hand_over,
                      Ended ended) {
  if (out_of_step_) throw TripError("the trip process is out of step after a trip that ended early");
  start_run(who, n);  // waits for "ready"
  started();
  hand_over();
  go();
  finish_ran(n, sample);  // "ran", and c's sample: TripError when either fails
  ended();
}

// `layerbench lab run-helper host-trip` (HostTripRunner::run_helper): the trip process itself,
// serving `socket_fd` with the shared memory `memory_fd` laid out for trips of up to `max_n`
// elements; the student's `library` (built from `file`) loaded, or none when `library` is empty
// (ours only); its exit status.
int run_trip_process(int socket_fd, int memory_fd, std::int64_t max_n, const std::filesystem::path& library,
                     const std::filesystem::path& file);

}  // namespace lb::lab
