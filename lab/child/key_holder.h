// What keeps the grade's secret and keys out of reach of the processes that run student code
// (docs/labs.md, "What grading guards against"). Where the grader is root, those processes run as
// a user of the grade's own (lab/child/student_sandbox.h), which may neither read nor trace a root
// process; where they run as the grader's own user (not root, or a uid that cannot run the
// runner's program), these two halves are what holds, and both are needed:
//   - every process that holds the secret or a key (the `lab check|grade|profile` parent, the lab
//     child) makes itself non-dumpable before it starts any process: then no other process of its
//     user may open its /proc/PID/mem, environ, fd or maps, or ptrace it, whatever Yama's
//     ptrace_scope says; only a process with CAP_SYS_PTRACE still may;
//   - so every process started to run student code (the compile process, lab 8's trip process)
//     gives up every capability before its exec (enter_student_sandbox calls
//     give_up_every_capability), the bounding set included, with no_new_privs set: as root its exec
//     would otherwise give it all of them back, CAP_SYS_PTRACE among them. The seccomp filter
//     refuses ptrace and process_vm_readv besides.
#pragma once

namespace lb::lab {

// prctl(PR_SET_DUMPABLE, 0) on this process (every thread), for good: core files are not written
// either. std::runtime_error when the call fails.
void make_key_holder_undumpable();

// In a forked process, before it execs student code: async-signal-safe (system calls only). Sets
// no_new_privs (no setuid or file-capability program gives anything back), empties the ambient,
// inheritable, bounding, permitted and effective capability sets. False when one step failed and
// the process could still hold a capability after its exec (a root process that may not empty its
// bounding set): the caller must not exec then.
bool give_up_every_capability() noexcept;

}  // namespace lb::lab
