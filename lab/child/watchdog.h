// Runs a child process with a time limit: its stdout and stderr are collected, and a child still
// running at the limit is killed (its whole process group). The student's kernel runs in such a
// child, so an infinite loop or a crash costs the child, never the checking process.
#pragma once
#include <string>
#include <vector>

namespace lb::lab {

struct ChildOutcome {
  bool timed_out = false;  // killed at the limit
  bool exited = false;     // ended by exit(): exit_code is valid
  int exit_code = -1;
  int signal = 0;          // the signal that ended it, when it did not exit
  double elapsed_s = 0;
  std::string out, err;
  // When each line of `out` arrived: its newline's read, in seconds on this process's steady
  // clock since the child started, one per '\n' in `out`, in order. A child's own clock can be
  // overwritten by the code it runs; this one cannot (lab/runners/host_trip/trip_clock.h times trips by it).
  std::vector<double> out_line_s;
};

// How the parent waits for the child's output. kSleep: poll blocks until a line comes. kSpin: poll
// never blocks, so a line's arrival is stamped within microseconds however long the parent waited
// before it (a process woken from a long sleep can take milliseconds to run again, on a virtual
// machine especially, and a trip's start mark follows a long wait while its end mark follows a
// short one: measured on the lent H100, sleeping stamps made 15.6 ms trips read as 13.1). Costs
// one core while the child runs: for the timing child of a runner that asks for it (the host trip, lab/runners/host_trip).
enum class ArrivalClock { kSleep, kSpin };

// Starts argv[0] (searched on the PATH) with argv, in a process group of its own; waits at most
// `time_limit_s`. Throws std::runtime_error naming the failing call when it cannot start it.
ChildOutcome run_with_time_limit(const std::vector<std::string>& argv, double time_limit_s,
                                 ArrivalClock clock = ArrivalClock::kSleep);

}  // namespace lb::lab
