// Who the student's code runs as, and what it may do to the grader (docs/labs.md, "What grading
// guards against"): the processes that run student code (a Python runner's compile process, the
// limited compile of kernel text, lab 8's trip process) can neither signal, trace nor stop the
// grader's processes, nor write its files, nor outlive the grade.
//
// The isolation is chosen once per command by the `lab` parent (choose_student_isolation) and
// handed to the child on its command line; each process that starts student code reads it here
// (student_isolation()) and enters it in the forked process before its exec
// (enter_student_sandbox).
//
// The mechanism (what holds where):
//   - a separate user: as root (euid 0), the `lab` parent picks a uid and gid of the grade's own
//     (kStudentIdBase + its pid % kStudentIdSpan, stepping on past one that a process runs as, that
//     /etc/passwd or /etc/group names, or that this user namespace does not map), after a forked
//     probe has shown that this uid can run what the runner runs as the student
//     (Runner::student_executable). Under it the student's processes can signal none of the
//     grader's (root's) processes and write none of its files; RLIMIT_NPROC bounds a fork bomb
//     (not enforced for uid 0); and at the end every process of the uid is killed.
//     Not root, or the probe failed: the grader's own user (as root, with no capability left).
//   - a seccomp-BPF filter (Linux 3.5 on; x86_64 and aarch64; under no_new_privs, so it needs no
//     privilege): kill and rt_sigqueueinfo only to its own pid (the sandboxed process's, which its
//     exec keeps) or its own group (0, -pid), tgkill and rt_tgsigqueueinfo only to its own pid,
//     setpgid only to a new group or its own; EPERM for tkill, pidfd_send_signal, pidfd_getfd,
//     ptrace, process_vm_readv/writev, kcmp, unshare, setns, bpf, perf_event_open, userfaultfd,
//     keyctl, add_key, request_key, and ioctl TIOCSTI/TIOCLINUX (keystrokes into the grader's
//     terminal); ENOSYS for clone3 (its flags are behind a pointer: glibc falls back to clone);
//     without SandboxRules::new_processes, EPERM for fork, vfork and a clone without CLONE_THREAD
//     (threads stay: CUDA, Python and LLVM need them). A 32-bit or x32 system call: ENOSYS. Where
//     the filter cannot be installed (a kernel without seccomp, another architecture) `filtered` is
//     false and the description says so.
//   - the `lab` parent is a child subreaper for its whole run, and ends what the student left after
//     every child (end_student_processes) before it writes any output.
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

// The range the separate user's uid and gid are taken from: far above any distribution's users
// and below the 2^31 that some tools read as signed; as wide as PID_MAX_LIMIT (2^22), so that two
// `lab` parents alive at once start from different uids (a uid in use is stepped past besides).
constexpr unsigned kStudentIdBase = 1'500'000'000;
constexpr unsigned kStudentIdSpan = 1u << 22;

// The isolation this machine allows, chosen once by the `lab` parent: a separate user where it is
// root and a forked probe under that uid can open and execute `student_executable` (what the lab's
// runner execs as the student: Runner::student_executable); the filter where a forked probe can
// install one. Its description says what holds and, where it is weaker, why, naming the path.
StudentIsolation choose_student_isolation(const std::filesystem::path& student_executable);

// Whether the student's code runs as a user of its own under the filter: what a grade needs
// unless --accept-weak-isolation accepts less.
bool isolation_is_full(const StudentIsolation& isolation);

// The isolation on a child's command line (`lab run-child --student-isolation WORD`): "user:UID:GID"
// or "grader", then ":filtered" or ":unfiltered"; and back (std::invalid_argument naming the word
// when it is none of these). The description read back is a short one (the child prints none).
std::string isolation_word(const StudentIsolation& isolation);
StudentIsolation parse_isolation_word(const std::string& word);

// This process's isolation for the processes it starts (by default: none chosen, the grader's
// user unfiltered).
const StudentIsolation& student_isolation();
void set_student_isolation(StudentIsolation isolation);

// In a forked process, before it execs student code: async-signal-safe (system calls only). Its
// own session and process group (setsid; only a group where it already leads one, setpgid(0, 0)); RLIMIT_NPROC under a separate uid; the switch to that uid (its parent-death
// signal, which the kernel clears on the switch, set again); every capability given up
// (key_holder.h); the seccomp filter. False when a step failed: the caller writes its one line and
// exits without the exec.
bool enter_student_sandbox(const StudentIsolation& isolation, const SandboxRules& rules) noexcept;

// A folder made for the student's processes (their HOME, TMPDIR, working folder) becomes theirs
// (owned by the separate uid, mode 0700, with what is in it); a file they must read or run, readable
// (and executable where its owner may execute it) by the student's gid, as its group, and its
// folder (one of ours, never the student's own) searchable by that group: the folders above it
// must let them through already (/tmp does). Nothing without a separate user. std::runtime_error
// naming the path when it cannot.
void hand_to_student(const std::filesystem::path& path, const StudentIsolation& isolation);

// Ends every process the student's code may have left: with a separate user, every process of its
// uid (kill(-1, SIGKILL) as that uid, until none is left); and every process this process adopted
// as a child subreaper (a double fork, a setsid daemon), killed and reaped. `spared`: this
// process's own children that are not the student's (none, where it has waited for them all).
// Returns when none is left; std::runtime_error when one is still there after a few seconds.
// Without a separate user only this process's own children (not `spared`) are reached: the grader's
// user is never sent kill(-1).
void end_student_processes(const StudentIsolation& isolation, const std::vector<pid_t>& spared = {});

// This process's children, as /proc says (each process's parent in /proc/PID/stat): the
// processes it adopted as a subreaper among them.
std::vector<pid_t> children_of_this_process();

}  // namespace lb::lab
