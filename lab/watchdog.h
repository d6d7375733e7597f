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
};

// Starts argv[0] (searched on the PATH) with argv, in a process group of its own; waits at most
// `time_limit_s`. Throws std::runtime_error naming the failing call when it cannot start it.
ChildOutcome run_with_time_limit(const std::vector<std::string>& argv, double time_limit_s);

}  // namespace lb::lab
