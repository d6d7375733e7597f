// Who the student's code runs as, and what it may do to the grader (docs/labs.md, "What grading
// guards against"): the processes that run student code (a Python runner's compile process, the
// limited compile of kernel text, lab 8's trip process) can neither signal, trace nor stop the
// grader's processes, nor write its files, nor outlive the grade.
//
// The isolation is chosen once per command by the `lab` parent (choose_student_isolation) and
// handed to the child on its command line; each process that starts student code reads it here
// (student_isolation()) and enters it in the forked process before its exec
// (enter_student_sandbox).
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace lb::lab {

struct StudentIsolation {
  // A uid and gid of the grade's own (root only): no process of the grader's runs as it, so the
  // student's processes can signal none of them and write none of the grader's files; and the
  // whole uid is killed at the end (end_student_processes). False: the grader's own user.
  bool separate_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
  // The seccomp filter (signals only to its own process, no ptrace, no process_vm_*, no new
  // processes where the rules say so) can be installed here.
  bool filtered = false;
  // One line for the grade's outputs and the console: what holds, and where it is weaker, why.
  std::string description;
};

// What a process that runs student code may do beyond the ordinary.
struct SandboxRules {
  bool new_processes = false;  // fork, vfork, clone of a process (not a thread): Triton's ptxas
};

// This process's isolation for the processes it starts (by default: none chosen, the grader's
// user unfiltered).
const StudentIsolation& student_isolation();
void set_student_isolation(StudentIsolation isolation);

// In a forked process, before it execs student code: async-signal-safe (system calls only). Its
// own process group; RLIMIT_NPROC under a separate uid; the switch to that uid; every capability
// given up (key_holder.h); the seccomp filter. False when a step failed: the caller writes its one
// line and exits without the exec.
bool enter_student_sandbox(const StudentIsolation& isolation, const SandboxRules& rules) noexcept;

// A folder made for the student's processes (their HOME, TMPDIR, working folder) becomes theirs
// (owned by the separate uid, mode 0700); a file they must read or run, readable by them. Nothing
// without a separate user. std::runtime_error naming the path when it cannot.
void hand_to_student(const std::filesystem::path& path, const StudentIsolation& isolation);

// Ends every process the student's code may have left: with a separate user, every process of its
// uid (kill(-1, SIGKILL) as that uid, until none is left); and every process this process adopted
// as a child subreaper (a double fork, a setsid daemon), killed and reaped. `spared`: this
// process's own children that are not the student's (none, where it has waited for them all).
// Returns when none is left; std::runtime_error when one is still there after a few seconds.
void end_student_processes(const StudentIsolation& isolation, const std::vector<pid_t>& spared = {});

}  // namespace lb::lab
