#include "lab/child/watchdog.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace lb::lab {
namespace {

[[noreturn]] void fail(const std::string& call, int error) {
  throw std::runtime_error(call + " failed: " + std::strerror(error));
}

// A pipe whose ends close themselves.
struct Pipe {
  int fd[2] = {-1, -1};
  // kSocket: a socket pair (fd[0] the child's end, fd[1] ours), which a write to can fail with
  // EPIPE without a SIGPIPE (MSG_NOSIGNAL) when the child is already gone.
  enum Kind { kPipe, kSocket };
  explicit Pipe(Kind kind = kPipe) {
    if (kind == kSocket ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) != 0 : pipe2(fd, O_CLOEXEC) != 0)
      fail(kind == kSocket ? "socketpair" : "pipe2", errno);
    // Both ends above the descriptors a child is given (0-2, kEventsFd): a dup2 onto a descriptor
    // that is already the pipe's would keep close-on-exec set, and the child would lose it.
    for (int& f : fd) {
      if (f > kEventsFd) continue;
      const int moved = fcntl(f, F_DUPFD_CLOEXEC, kEventsFd + 1);
      if (moved < 0) fail("fcntl(F_DUPFD_CLOEXEC)", errno);
      close(f);
      f = moved;
    }
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void close_write() {
    close(fd[1]);
    fd[1] = -1;
  }
};

}  // namespace

ChildOutcome run_with_time_limit(const std::vector<std::string>& argv, double time_limit_s, ArrivalClock clock,
                                 ChildChannel channel, const std::string& input) {
  if (argv.empty()) throw std::invalid_argument("run_with_time_limit: no command");
  const bool with_events = channel == ChildChannel::kEvents;
  // `input` (a few keys) is written whole before the child is read from: it must fit in the
  // socket's buffer (hundreds of KiB) without the child reading it, so it is held far below that.
  if (input.size() > 4096) throw std::invalid_argument("run_with_time_limit: more input than 4096 bytes");
  Pipe in(Pipe::kSocket), out, err, events;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  // The pipes above are close-on-exec: of them the child keeps only what is dup'ed here, its
  // standard streams and the events pipe's write end as kEventsFd.
  if (with_events) posix_spawn_file_actions_adddup2(&actions, events.fd[1], kEventsFd);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // its own group: a timeout kills what it started too

  std::vector<char*> args;
  std::vector<std::string> words = argv;
  for (auto& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) fail("posix_spawnp(" + argv[0] + ")", spawned);
  out.close_write();
  err.close_write();
  events.close_write();
  close(in.fd[0]);
  in.fd[0] = -1;
  shutdown(in.fd[1], SHUT_RD);
  for (std::size_t written = 0; written < input.size();) {
    const ssize_t put = send(in.fd[1], input.data() + written, input.size() - written, MSG_NOSIGNAL);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) break;  // the child exited before reading: what it did is read below
    written += static_cast<std::size_t>(put);
  }
  in.close_write();

  ChildOutcome outcome;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(time_limit_s);
  pollfd fds[3] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}, {with_events ? events.fd[0] : -1, POLLIN, 0}};
  std::string* sinks[3] = {&outcome.out, &outcome.err, &outcome.events};
  std::size_t* counts[2] = {&outcome.out_bytes, &outcome.err_bytes};
  int open_count = with_events ? 3 : 2;
  while (open_count > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      outcome.timed_out = true;
      break;
    }
    const int wait_ms = clock == ArrivalClock::kSpin ? 0 : static_cast<int>(std::min<long long>(left.count(), 1000));
    const int ready = poll(fds, 3, wait_ms);
    if (ready < 0 && errno != EINTR) fail("poll", errno);
    for (int i = 0; i < 3; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[4096];
      const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        if (i == 2) {
          sinks[i]->append(buffer, static_cast<std::size_t>(got));
        } else {  // a stream: kept up to kMaxStreamBytes, counted whole
          *counts[i] += static_cast<std::size_t>(got);
          const std::size_t room = kMaxStreamBytes - std::min(kMaxStreamBytes, sinks[i]->size());
          sinks[i]->append(buffer, std::min(room, static_cast<std::size_t>(got)));
        }
        if (i == 2) {  // the events: when each of their lines arrived, read right after poll woke us
          const double at = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          for (ssize_t k = 0; k < got; ++k)
            if (buffer[k] == '\n') outcome.event_line_s.push_back(at);
        }
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;  // closed: the child (and all it started) let go of it
        --open_count;
      }
    }
  }
  int status = 0;
  if (outcome.timed_out) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  } else {
    // Every pipe closed: the child is exiting; wait for it, within the time left.
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        outcome.timed_out = true;
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      usleep(2000);
    }
  }
  outcome.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!outcome.timed_out) {
    outcome.exited = WIFEXITED(status);
    outcome.exit_code = outcome.exited ? WEXITSTATUS(status) : -1;
    outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  return outcome;
}

}  // namespace lb::lab
