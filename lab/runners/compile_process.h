// The process a Python runner compiles the student's file in (lab/runners/numba/): the only place
// where anything of that file runs, since importing it runs Python (a @cuda.jit signature string
// is eval'd by Numba). The lab child starts it and takes back only a compiled kernel, which it
// validates; the timing and checking stay in the child, which never imports the file.
//
// The process is a fresh exec of the interpreter the Python layers use (common/python_interpreter.h),
// so nothing of the child's memory reaches it, with:
//   - resource limits (setrlimit after fork): CPU seconds, address space, file size, no core files;
//     a wall-clock limit, after which its whole process group is killed; it dies with the child
//     (PR_SET_PDEATHSIG);
//   - the student's sandbox (lab/child/student_sandbox.h), entered after fork: its own session
//     and process group (no controlling terminal); the student's uid where the `lab` parent chose
//     one (root), with RLIMIT_NPROC; no capability (lab/child/key_holder.h: the bounding set
//     emptied, no_new_privs: as root its exec would otherwise get CAP_SYS_PTRACE, which reads any
//     process's memory); the seccomp filter (signals only to itself, no ptrace, no process_vm_*,
//     no new process unless `rules` allow one: Triton's compile runs ptxas, Numba's runs nothing);
//   - an environment of our own: only the variables that find Python and CUDA (allowed_environment),
//     HOME, TMPDIR and the working folder; no key or seed anywhere (the child got its keys on its
//     standard input, read to its end before anything of the student's was loaded, and holds them
//     only in its memory; its argv and environment never held one);
//   - its own temporary working folder (the student's file is copied into it), handed to the
//     student's uid (hand_to_student), removed after;
//   - standard input /dev/null, standard output and error to a file of ours (the student's output:
//     shown capped, never parsed), every other descriptor closed (the child's event channel too);
//   - the process that starts it made non-dumpable first (PR_SET_DUMPABLE), so that, where it runs
//     as the same user, it cannot read its parent's memory (the grade's keys) through /proc;
//   - whatever it leaves running is killed and reaped before run_compile_process returns, so that
//     nothing of the student's loads the GPU while our kernels are timed (end_student_processes):
//     its process group; every process of the student's uid; and, the process that starts it
//     being a child subreaper (PR_SET_CHILD_SUBREAPER) for the while, every other descendant (a
//     double fork, a setsid daemon), adopted when its parent dies and killed in turn.
//     What this cannot reach, where the student's code runs as the grader's own user (no root, or
//     a uid that cannot run the interpreter: the description of student_isolation() says so): a
//     process it has someone else start outside this tree (a user service manager, cron, at, an
//     ssh to localhost); and if the child itself is killed first (at its own time limit), what it
//     had adopted goes to the next subreaper up: the `lab` parent, which is one for its whole run
//     and ends what it adopted after each child. Under a uid of its own, kill(-1) as that uid
//     reaches every process of it, wherever it was started.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "lab/child/student_sandbox.h"  // SandboxRules

namespace lb::lab {

struct ProcessLimits {
  double wall_s = 60;                                // killed after this long
  unsigned long cpu_s = 60;                          // RLIMIT_CPU
  unsigned long long address_space = 16ull << 30;    // RLIMIT_AS, bytes
  unsigned long long file_bytes = 64ull << 20;       // RLIMIT_FSIZE: any one file it writes
};

// What the process left: how it ended, and what it wrote to standard output and error, the first
// kOutputCap bytes of it (the rest counted, not kept).
struct CompileProcessOutcome {
  static constexpr std::size_t kOutputCap = 16 << 10;
  bool timed_out = false;
  bool exited = false;
  int exit_code = -1;
  int signal = 0;
  std::string output;
  std::size_t output_bytes = 0;  // all it wrote
  double elapsed_s = 0;
  // One line: "exit status 1", "killed by signal 9 (Killed)", "stopped after 60 s".
  std::string how_it_ended() const;
  // The output as the student reads it: the kept bytes, and a line saying how much was left out.
  std::string shown_output() const;
};

// A working folder under the system's temporary folder, made on construction (mode 0700) and
// removed with everything in it when this is destroyed (symbolic links inside removed, not followed).
class WorkingFolder {
 public:
  explicit WorkingFolder(const std::string& what);
  ~WorkingFolder();
  WorkingFolder(const WorkingFolder&) = delete;
  WorkingFolder& operator=(const WorkingFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The variables the compile process may see of this process's environment: those that find the
// interpreter's packages and CUDA (PATH, PYTHONPATH, PYTHONHOME, VIRTUAL_ENV, CUDA_HOME, CUDA_PATH,
// LD_LIBRARY_PATH), "NAME=value" each; python_package_root() first on PYTHONPATH. Nothing else.
std::vector<std::string> allowed_environment();

// Runs `argv` (argv[0] a path, or a name searched on this process's PATH) in `folder` as the header
// says, with `environment` ("NAME=value"; HOME, TMPDIR and PWD are set to `folder`), under `limits`,
// in the sandbox of student_isolation() with `rules` (by default: no new process). When it ends,
// every process of the student's uid is killed (end_student_processes): no other process of the
// student's may be meant to live meanwhile (lab 8's trip process starts after its build). Throws
// std::runtime_error naming the call when it cannot start it, or when what it left cannot be ended.
CompileProcessOutcome run_compile_process(const std::vector<std::string>& argv, std::vector<std::string> environment,
                                          const WorkingFolder& folder, const ProcessLimits& limits,
                                          const SandboxRules& rules = {});

}  // namespace lb::lab
