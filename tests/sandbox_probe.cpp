// What a student's process might try against the grader, one try per run, for
// tests/test_student_sandbox.cpp: it runs in the student's sandbox (lab/child/student_sandbox.h)
// and prints "WHAT: ok" or "WHAT: <the error>", exit 0 when the try succeeded, 1 when it did not.
//   sandbox_probe kill PID SIGNAL    kill(PID, SIGNAL); PID "parent": its parent's
//   sandbox_probe ptrace PID         PTRACE_ATTACH (and a detach where it worked)
//   sandbox_probe fork               fork (the child exits at once)
//   sandbox_probe setpgid PGID       setpgid(0, PGID): join another process group
//   sandbox_probe daemon PATH S      fork, setsid, fork: the grandchild writes PATH after S seconds
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int said(const char* what, bool ok) {
  if (ok) std::printf("%s: ok\n", what);
  else std::printf("%s: %s\n", what, std::strerror(errno));
  return ok ? 0 : 1;
}

pid_t pid_of(const std::string& word) { return word == "parent" ? getppid() : static_cast<pid_t>(std::atol(word.c_str())); }

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "kill" && argc == 4) return said("kill", kill(pid_of(argv[2]), std::atoi(argv[3])) == 0);
  if (what == "ptrace" && argc == 3) {
    const pid_t pid = pid_of(argv[2]);
    const bool attached = ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) == 0;
    const int code = said("ptrace", attached);
    if (attached) {
      waitpid(pid, nullptr, 0);
      ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    }
    return code;
  }
  if (what == "fork" && argc == 2) {
    const pid_t pid = fork();
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid(pid, nullptr, 0);
    return said("fork", pid > 0);
  }
  if (what == "setpgid" && argc == 3) return said("setpgid", setpgid(0, pid_of(argv[2])) == 0);
  if (what == "daemon" && argc == 4) {
    const pid_t first = fork();
    if (first < 0) return said("daemon", false);
    if (first == 0) {
      setsid();
      if (fork() == 0) {
        sleep(static_cast<unsigned>(std::atoi(argv[3])));
        if (std::FILE* f = std::fopen(argv[2], "w")) {
          std::fputs("the daemon outlived the grade\n", f);
          std::fclose(f);
        }
      }
      _exit(0);
    }
    waitpid(first, nullptr, 0);
    return said("daemon", true);
  }
  std::fprintf(stderr, "usage: sandbox_probe kill PID SIGNAL | ptrace PID | fork | setpgid PGID | daemon PATH SECONDS\n");
  return 2;
}
