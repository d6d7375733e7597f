#include "lab/runners/compile_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "common/python_interpreter.h"
#include "lab/child/key_holder.h"
#include "lab/child/student_sandbox.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& call, int error) {
  throw std::runtime_error(call + " failed: " + std::strerror(error));
}

// argv[0] as execve takes it: a name without a slash searched on this process's PATH (the compile
// process's own PATH is not trusted to find it).
std::string resolve(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  throw std::runtime_error("cannot find " + program + " on the PATH");
}

// In the forked process, before execve: only async-signal-safe calls. Exits 127 when one fails.
[[noreturn]] void become_compile_process(const char* program, char* const* argv, char* const* envp, const char* folder,
                                         int output_fd, const ProcessLimits& limits, const SandboxRules& rules,
                                         pid_t parent) {
  const auto limit = [](int resource, rlim_t value) {
    const rlimit r{value, value};
    if (setrlimit(resource, &r) != 0) _exit(127);
  };
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) _exit(127);  // dies with the child that started it
  if (getppid() != parent) _exit(127);                     // which may have died before the line above
  limit(RLIMIT_CPU, static_cast<rlim_t>(limits.cpu_s));
  limit(RLIMIT_AS, static_cast<rlim_t>(limits.address_space));
  limit(RLIMIT_FSIZE, static_cast<rlim_t>(limits.file_bytes));
  limit(RLIMIT_CORE, 0);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(output_fd, STDOUT_FILENO) < 0 ||
      dup2(output_fd, STDERR_FILENO) < 0)
    _exit(127);
  // Its own group (killed whole when it ends), the student's uid where there is one, no capability
  // (as root its exec would otherwise get every one back, CAP_SYS_PTRACE among them), the seccomp
  // filter (student_sandbox.h). Said on its output when it cannot.
  if (!enter_student_sandbox(student_isolation(), rules)) {
    static constexpr char kWhy[] = "layerbench: the compile process could not enter the student's sandbox (its "
                                   "uid, its capabilities given up, its seccomp filter): it does not run the file\n";
    (void)!write(STDERR_FILENO, kWhy, sizeof kWhy - 1);
    _exit(127);
  }
  // Every other descriptor closed: the child's event channel, its pipes, anything it opened.
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
    for (int fd = 3; fd < 65536; ++fd) close(fd);
  if (chdir(folder) != 0) _exit(127);
  execve(program, argv, envp);
  _exit(127);
}

}  // namespace

std::string CompileProcessOutcome::how_it_ended() const {
  char text[160];
  if (timed_out) std::snprintf(text, sizeof text, "stopped after %.0f s", elapsed_s);
  else if (exited) std::snprintf(text, sizeof text, "exit status %d", exit_code);
  else std::snprintf(text, sizeof text, "killed by signal %d (%s)", signal, strsignal(signal));
  return text;
}

std::string CompileProcessOutcome::shown_output() const {
  std::string shown = output;
  if (output_bytes > output.size())
    shown += "\n[... " + std::to_string(output_bytes - output.size()) + " more bytes of output left out]";
  return shown;
}

WorkingFolder::WorkingFolder(const std::string& what) {
  std::string pattern = (fs::temp_directory_path() / ("layerbench-" + what + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) fail("mkdtemp(" + pattern + ")", errno);
  path_ = pattern;
}

WorkingFolder::~WorkingFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);  // does not follow symbolic links
}

std::vector<std::string> allowed_environment() {
  std::vector<std::string> environment;
  std::string python_path = python_package_root();
  if (const char* given = std::getenv("PYTHONPATH"); given && *given) python_path += std::string(":") + given;
  environment.push_back("PYTHONPATH=" + python_path);
  for (const char* name : {"PATH", "PYTHONHOME", "VIRTUAL_ENV", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH"})
    if (const char* value = std::getenv(name); value && *value) environment.push_back(std::string(name) + "=" + value);
  return environment;
}

CompileProcessOutcome run_compile_process(const std::vector<std::string>& argv, std::vector<std::string> environment,
                                          const WorkingFolder& folder, const ProcessLimits& limits,
                                          const SandboxRules& rules) {
  if (argv.empty()) throw std::invalid_argument("run_compile_process: no command");
  const std::string program = resolve(argv[0]);
  for (const char* name : {"HOME", "TMPDIR", "PWD"})
    environment.push_back(std::string(name) + "=" + folder.path().string());
  environment.push_back("PYTHONDONTWRITEBYTECODE=1");  // nothing written into the package's folders
  std::vector<std::string> words = argv;
  std::vector<char*> args, envp;
  for (std::string& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);

  // The output file: ours, outside the process's reach once it is unlinked (read through this descriptor).
  const fs::path output_path = folder.path() / ".output";
  const int output_fd = open(output_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (output_fd < 0) fail("open(" + output_path.string() + ")", errno);
  unlink(output_path.c_str());
  const std::string folder_text = folder.path().string();
  // The folder is its HOME, TMPDIR and working folder: the student's uid's, where there is one.
  try {
    hand_to_student(folder.path(), student_isolation());
  } catch (...) {
    close(output_fd);
    throw;
  }

  // This process (the lab child) becomes non-dumpable first: the compile process runs as the same
  // user, and must not read the child's memory (the grade's keys) through /proc/PID/mem or ptrace.
  try {
    make_key_holder_undumpable();
  } catch (...) {
    close(output_fd);
    throw;
  }
  // A child subreaper: whatever the compile process leaves behind, in its group or not (setsid, a
  // double fork), is adopted by this process when its parent dies, and killed below. The children
  // this process had before are not its.
  int was_subreaper = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper);
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    close(output_fd);
    fail("prctl(PR_SET_CHILD_SUBREAPER)", errno);
  }
  const std::vector<pid_t> children_before = children_of_this_process();
  const pid_t parent = getpid();
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    close(output_fd);
    fail("fork", errno);
  }
  if (pid == 0)
    become_compile_process(program.c_str(), args.data(), envp.data(), folder_text.c_str(), output_fd, limits, rules,
                           parent);
  // Its own session and group it makes itself (setsid, which a group leader could not): a kill
  // of it below reaches it by its pid too, in case it had not yet.

  CompileProcessOutcome outcome;
  const auto deadline = start + std::chrono::duration<double>(limits.wall_s);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      close(output_fd);
      fail("waitpid", errno);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      outcome.timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(-pid, SIGKILL);  // whatever it started and left running in its group
  // And everything else it left, adopted meanwhile, and every process of the student's uid.
  try {
    end_student_processes(student_isolation(), children_before);
  } catch (...) {
    close(output_fd);
    if (!was_subreaper) prctl(PR_SET_CHILD_SUBREAPER, 0);
    throw;
  }
  if (!was_subreaper) prctl(PR_SET_CHILD_SUBREAPER, 0);
  outcome.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!outcome.timed_out) {
    outcome.exited = WIFEXITED(status);
    outcome.exit_code = outcome.exited ? WEXITSTATUS(status) : -1;
    outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  struct stat info {};
  if (fstat(output_fd, &info) == 0) outcome.output_bytes = static_cast<std::size_t>(info.st_size);
  outcome.output.resize(std::min(outcome.output_bytes, CompileProcessOutcome::kOutputCap));
  const ssize_t got = pread(output_fd, outcome.output.data(), outcome.output.size(), 0);
  outcome.output.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  close(output_fd);
  return outcome;
}

}  // namespace lb::lab
