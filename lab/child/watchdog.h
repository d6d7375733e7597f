// Runs a child process with a time limit: its stdout and stderr are collected, and a child still
// running at the limit is killed (its whole process group). The student's kernel runs in such a
// child, so an infinite loop or a crash costs the child, never the checking process.
//
// The lab's child reports on a channel of its own (ChildChannel::kEvents: a pipe on file
// descriptor kEventsFd, which no student code is given): its stdout and stderr carry what the
// student's code prints (a kernel's device printf, a Python print), which is shown, never parsed.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace lb::lab {

struct ChildOutcome {
  bool timed_out = false;  // killed at the limit
  bool exited = false;     // ended by exit(): exit_code is valid
  int exit_code = -1;
  int signal = 0;          // the signal that ended it, when it did not exit
  double elapsed_s = 0;
  // Its standard streams: their first kMaxStreamBytes each (a kernel that prints in a loop would
  // fill this process's memory), and how many bytes each carried in all.
  std::string out, err;
  std::size_t out_bytes = 0, err_bytes = 0;
  // ChildChannel::kEvents: what the child wrote on kEventsFd, whole; empty without the channel.
  std::string events;
  // When each line of `events` arrived: its newline's read, in seconds on this process's steady
  // clock since the child started, one per '\n' in `events`, in order. A child's own clock can be
  // overwritten by the code it runs; this one cannot (lab/runners/host_trip/trip_clock.h times trips by it).
  std::vector<double> event_line_s;
};

// The file descriptor the lab's child writes its events on (`lab run-child --events-fd`): a pipe
// to the parent, open in the child only as this descriptor.
constexpr int kEventsFd = 3;
constexpr std::size_t kMaxStreamBytes = std::size_t{1} << 20;
// kStreams: a child whose output is only its standard streams (nvcc). kEvents: besides them, the
// events pipe on kEventsFd.
enum class ChildChannel { kStreams, kEvents };

// How the parent waits for the child's output. kSleep: poll blocks until a line comes. kSpin: poll
// never blocks, so a line's arrival is stamped within microseconds however long the parent waited
// before it (a process woken from a long sleep can take milliseconds to run again, on a virtual
// machine especially, and a trip's start mark follows a long wait while its end mark follows a
// short one: measured on the lent H100, sleeping stamps made 15.6 ms trips read as 13.1). Costs
// one core while the child runs: for the timing child of a runner that asks for it (the host trip, lab/runners/host_trip).
enum class ArrivalClock { kSleep, kSpin };

// Starts argv[0] (searched on the PATH) with argv, in a process group of its own; waits at most
// `time_limit_s`. Throws std::runtime_error naming the failing call when it cannot start it.
// `input`: written to its standard input, which is then closed (empty: it reads end of file at once;
// it never reads this process's own).
ChildOutcome run_with_time_limit(const std::vector<std::string>& argv, double time_limit_s,
                                 ArrivalClock clock = ArrivalClock::kSleep,
                                 ChildChannel channel = ChildChannel::kStreams, const std::string& input = {});

}  // namespace lb::lab
