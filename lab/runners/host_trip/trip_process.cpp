#include "lab/runners/host_trip/trip_process.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/close_range.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <csignal>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "common/gpu.h"
#include "lab/child/key_holder.h"
#include "lab/child/student_program.h"  // StudentCompileError
#include "lab/runners/host_trip/trip_build.h"
#include "lab/runners/host_trip/trip_ours.h"
#include "workloads/problem.h"  // parallel_copy

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

enum Op : std::int32_t { kOpen = 1, kRun, kGo, kClose, kAbandon };

struct Command {
  std::int32_t op = 0;
  std::int32_t who = 0;
  std::int64_t n = 0;
  std::int32_t inputs_back = 0;
};

std::string system_error(const std::string& what) { return what + ": " + std::strerror(errno); }

std::size_t memory_bytes(std::int64_t max_n) {
  return static_cast<std::size_t>(3 * max_n + kGuardFloats) * sizeof(float);
}

}  // namespace

struct TripReply {
  char kind[16] = {};
  std::int32_t ok = 1;
  std::int32_t pinned[3] = {};
  char error[3072] = {};
  char fault[512] = {};
};

namespace {

void copy_text(char* to, std::size_t size, const std::string& text) {
  const std::size_t n = std::min(size - 1, text.size());
  std::memcpy(to, text.data(), n);
  to[n] = '\0';
}

// ---- The trip process's side -------------------------------------------------------------------

std::string cuda_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

void require(cudaError_t status, const std::string& call) {
  if (status != cudaSuccess) throw TripError(call + " returned " + cuda_text(status));
}

bool is_pinned(const void* p) {
  cudaPointerAttributes attributes{};
  const bool known = cudaPointerGetAttributes(&attributes, p) == cudaSuccess;
  cudaGetLastError();
  return known && attributes.type == cudaMemoryTypeHost;
}

// a, b and c as the trip's host_alloc gave them (c with the guard zone after its n floats), and
// lab_setup(n) after them; lab_teardown and each host_free when released.
class OpenTrip {
 public:
  OpenTrip(Trip& trip, std::int64_t n) : trip_(trip), n_(n) {
    try {
      a_ = allocate(n, "a");
      b_ = allocate(n, "b");
      c_ = allocate(n + kGuardFloats, "c");
      if (const cudaError_t status = trip.setup(n); status != cudaSuccess) {
        trip.teardown();  // what it did allocate
        require(status, "lab_setup(" + std::to_string(n) + ")");
      }
      set_up_ = true;
    } catch (...) {
      free_buffers();
      throw;
    }
  }
  ~OpenTrip() {
    if (set_up_) trip_.teardown();  // its error ignored: abandoned
    free_buffers();
  }
  OpenTrip(const OpenTrip&) = delete;
  OpenTrip& operator=(const OpenTrip&) = delete;

  std::int64_t n() const { return n_; }
  float* a() const { return a_; }
  float* b() const { return b_; }
  float* c() const { return c_; }
  Trip& trip() const { return trip_; }
  void pinned(std::int32_t* out) const {
    out[0] = is_pinned(a_);
    out[1] = is_pinned(b_);
    out[2] = is_pinned(c_);
  }
  // lab_teardown, checked.
  void close() {
    set_up_ = false;
    require(trip_.teardown(), "lab_teardown()");
  }

 private:
  float* allocate(std::int64_t floats, const char* name) {
    const std::size_t bytes = static_cast<std::size_t>(floats) * sizeof(float);
    void* p = trip_.host_alloc(bytes);
    if (!p)
      throw TripError("lab_host_alloc(" + std::to_string(bytes) + ") returned a null pointer (for " + name + ")");
    cudaPointerAttributes attributes{};
    const bool known = cudaPointerGetAttributes(&attributes, p) == cudaSuccess;
    cudaGetLastError();
    if (known && (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged)) {
      trip_.host_free(p);
      throw TripError(std::string("lab_host_alloc returned GPU memory for ") + name +
                      ": the runner writes a and b and reads c on the host; allocate host memory (cudaMallocHost)");
    }
    return static_cast<float*>(p);
  }
  void free_buffers() {
    for (float** p : {&a_, &b_, &c_}) {
      if (*p) trip_.host_free(*p);
      *p = nullptr;
    }
  }

  Trip& trip_;
  std::int64_t n_;
  bool set_up_ = false;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
};

void copy(const float* from, float* to, std::size_t n) { parallel_copy({from, n}, {to, n}); }

class TripServer {
 public:
  TripServer(int socket, float* memory, std::int64_t max_n, std::unique_ptr<Trip> student)
      : socket_(socket), memory_(memory), max_n_(max_n), student_(std::move(student)) {}

  // Serves commands until the child closes the socket: 0, or 2 for a command out of place.
  int serve() {
    for (Command command; receive(command);) {
      if (command.who != 0 && command.who != 1) return 2;
      const TripOf who = command.who == 1 ? TripOf::kOurs : TripOf::kStudent;
      std::optional<OpenTrip>& open = slot(who);
      TripReply reply;
      try {
        switch (command.op) {
          case kOpen:
            if (command.n < 1 || command.n > max_n_) return 2;
            open.reset();
            open.emplace(trip_of(who), command.n);
            open->pinned(reply.pinned);
            send("opened", reply);
            break;
          case kRun:
            if (!open || command.n != open->n()) return 2;
            if (!run(*open, command.inputs_back != 0)) return 2;
            break;
          case kClose:
            if (!open) return 2;
            open->close();
            open.reset();
            send("closed", reply);
            break;
          case kAbandon:
            open.reset();
            send("closed", reply);
            break;
          default:
            return 2;
        }
      } catch (const TripError& e) {
        open.reset();
        failed(e.what());
      }
    }
    return 0;
  }

 private:
  // false when the command after "ready" is not "go".
  bool run(OpenTrip& open, bool inputs_back) {
    const std::size_t n = static_cast<std::size_t>(open.n());
    // The inputs of this trip alone, into the student's own buffers, outside the timed trip (in
    // parallel, as the child writes them: 768 MiB at 2^26).
    copy(memory_, open.a(), n);
    copy(memory_ + max_n_, open.b(), n);
    copy(memory_ + 2 * max_n_, open.c(), n);
    for (std::int64_t i = 0; i < kGuardFloats; ++i) std::memcpy(open.c() + n + i, &kGuardBits, sizeof kGuardBits);
    require(cudaDeviceSynchronize(), "GPU work left over from the trip before (cudaDeviceSynchronize)");
    TripReply ready;
    send("ready", ready);
    Command go;
    if (!receive(go) || go.op != kGo) return false;
    const cudaError_t status = open.trip().trip(open.a(), open.b(), open.c(), open.n());
    const cudaError_t finished = cudaDeviceSynchronize();
    std::string error;
    if (status != cudaSuccess) error = "lab_trip returned " + cuda_text(status);
    else if (finished != cudaSuccess)
      error = "the trip's GPU work (cudaDeviceSynchronize after lab_trip) returned " + cuda_text(finished);
    else if (const cudaError_t launch = cudaGetLastError(); launch != cudaSuccess)
      error = "a launch in lab_trip (cudaGetLastError after it) returned " + cuda_text(launch);
    TripReply ran;
    ran.ok = error.empty();
    send("ran", ran);
    if (!error.empty()) throw TripError(error);
    copy(open.c(), memory_ + 2 * max_n_, n + static_cast<std::size_t>(kGuardFloats));
    if (inputs_back) {
      copy(open.a(), memory_, n);
      copy(open.b(), memory_ + max_n_, n);
    }
    TripReply collected;
    send("collected", collected);
    return true;
  }

  void failed(const std::string& error) {
    TripReply reply;
    reply.ok = 0;
    copy_text(reply.error, sizeof reply.error, error);
    copy_text(reply.fault, sizeof reply.fault, cuda_context_fault());
    send("failed", reply);
  }

  Trip& trip_of(TripOf who) {
    if (who == TripOf::kStudent) return *student_;
    if (!ours_) ours_ = make_our_trip();
    return *ours_;
  }
  std::optional<OpenTrip>& slot(TripOf who) { return who == TripOf::kStudent ? student_open_ : ours_open_; }

  bool receive(Command& command) {
    const ssize_t got = recv(socket_, &command, sizeof command, 0);
    return got == static_cast<ssize_t>(sizeof command);
  }
  void send(const char* kind, TripReply& reply) {
    copy_text(reply.kind, sizeof reply.kind, kind);
    if (::send(socket_, &reply, sizeof reply, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof reply)) std::_Exit(2);
  }

  int socket_;
  float* memory_;
  std::int64_t max_n_;
  std::unique_ptr<Trip> student_;
  std::unique_ptr<Trip> ours_;
  std::optional<OpenTrip> student_open_, ours_open_;  // after the trips: freed first
};

}  // namespace

// ---- The child's side --------------------------------------------------------------------------

TripProcess::TripProcess(const fs::path& program, const fs::path& library, const fs::path& file, std::int64_t max_n)
    : max_n_(max_n) {
  if (max_n < 1) throw std::logic_error("a trip process for no elements");
  memory_bytes_ = memory_bytes(max_n);
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0)
    throw std::runtime_error(system_error("socketpair for the trip process"));
  socket_ = sockets[0];
  const int memory = memfd_create("lb-trip-data", MFD_CLOEXEC);
  if (memory < 0 || ftruncate(memory, static_cast<off_t>(memory_bytes_)) != 0) {
    const std::string why = system_error("memfd for the trip's data");
    if (memory >= 0) ::close(memory);
    ::close(sockets[1]);
    ::close(socket_);
    throw std::runtime_error(why);
  }
  void* mapped = mmap(nullptr, memory_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0);
  // The two descriptors the trip process keeps (not close-on-exec), and its argv, made before the fork.
  const int their_socket = fcntl(sockets[1], F_DUPFD, 3);
  const int their_memory = fcntl(memory, F_DUPFD, 3);
  ::close(sockets[1]);
  ::close(memory);
  if (mapped == MAP_FAILED || their_socket < 0 || their_memory < 0) {
    const std::string why = system_error("the trip process's descriptors or shared memory");
    if (their_socket >= 0) ::close(their_socket);
    if (their_memory >= 0) ::close(their_memory);
    ::close(socket_);
    throw std::runtime_error(why);
  }
  memory_ = static_cast<float*>(mapped);
  std::vector<std::string> words = {program.string(), "lab", "run-helper", "host-trip", library.string(), file.string(),
                                    "--socket-fd", std::to_string(their_socket), "--memory-fd",
                                    std::to_string(their_memory)};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    // A fresh image (exec): nothing of this process's memory, its keys among it, comes along.
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the child gone (killed at its time limit): this goes too
    // The student's host code gets no capability: as root its exec would otherwise give it every
    // one, CAP_SYS_PTRACE among them, which reads the key holders whatever their dumpable flag says.
    if (!give_up_every_capability()) {
      static constexpr char kWhy[] = "layerbench: the trip process could not give up its capabilities (a root "
                                     "without CAP_SETPCAP?): it does not load the library\n";
      (void)!write(STDERR_FILENO, kWhy, sizeof kWhy - 1);
      _exit(127);
    }
    // No descriptor of the child's but the standard ones and these two reaches the trip process.
    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0 || fcntl(their_socket, F_SETFD, 0) != 0 ||
        fcntl(their_memory, F_SETFD, 0) != 0)
      _exit(127);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // its copy on 0 stays open
    if (null < 0 || dup2(null, STDIN_FILENO) < 0) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const int fork_errno = errno;
  ::close(their_socket);
  ::close(their_memory);
  if (pid_ < 0) {
    munmap(memory_, memory_bytes_);
    ::close(socket_);
    errno = fork_errno;
    throw std::runtime_error(system_error("fork of the trip process"));
  }
}

TripProcess::~TripProcess() {
  ::close(socket_);
  if (pid_ > 0) {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  munmap(memory_, memory_bytes_);
}

void TripProcess::send(int op, TripOf who, std::int64_t n, bool inputs_back) {
  const Command command{op, who == TripOf::kOurs ? 1 : 0, n, inputs_back ? 1 : 0};
  if (::send(socket_, &command, sizeof command, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof command))
    throw std::runtime_error(system_error("the trip process (which runs the student's code) stopped"));
}

TripReply TripProcess::receive(const char* expected) {
  TripReply reply;
  const ssize_t got = recv(socket_, &reply, sizeof reply, 0);
  if (got == 0 || got < 0) {
    int status = 0;
    std::string how = "it closed its end";
    if (got == 0 && waitpid(pid_, &status, 0) == pid_) {
      pid_ = -1;
      how = WIFSIGNALED(status) ? "it crashed (signal " + std::to_string(WTERMSIG(status)) + ", " +
                                      strsignal(WTERMSIG(status)) + ")"
                                : "it exited with status " + std::to_string(WEXITSTATUS(status));
    }
    throw std::runtime_error("the trip process (which runs the student's code) stopped: " + how);
  }
  reply.kind[sizeof reply.kind - 1] = '\0';
  reply.error[sizeof reply.error - 1] = '\0';
  reply.fault[sizeof reply.fault - 1] = '\0';
  if (got != static_cast<ssize_t>(sizeof reply))
    throw std::runtime_error("the trip process wrote a message of " + std::to_string(got) + " bytes");
  if (std::strcmp(reply.kind, "failed") == 0) {
    fault_ = reply.fault;
    throw TripError(reply.error);
  }
  if (std::strcmp(reply.kind, expected) != 0)
    throw std::runtime_error(std::string("the trip process replied '") + reply.kind + "' where '" + expected +
                             "' was due");
  return reply;
}

HostBuffers TripProcess::open(TripOf who, std::int64_t n, const std::string& size) {
  if (n < 1 || n > max_n_) throw std::logic_error("a trip larger than the trip process's shared memory");
  send(kOpen, who, n, false);
  const TripReply reply = receive("opened");
  return {size, reply.pinned[0] != 0, reply.pinned[1] != 0, reply.pinned[2] != 0};
}

void TripProcess::start_run(TripOf who, std::int64_t n, bool inputs_back) {
  send(kRun, who, n, inputs_back);
  receive("ready");
}

void TripProcess::go() { send(kGo, TripOf::kStudent, 0, false); }

void TripProcess::finish_ran() { receive("ran"); }

void TripProcess::wait_loaded() {
  try {
    receive("loaded");
  } catch (const TripError& e) {
    throw StudentCompileError(e.what());
  }
}

void TripProcess::finish_collected() { receive("collected"); }

void TripProcess::close(TripOf who) {
  send(kClose, who, 0, false);
  receive("closed");
}

void TripProcess::abandon(TripOf who) {
  send(kAbandon, who, 0, false);
  receive("closed");
}

int run_trip_process(int socket_fd, int memory_fd, const fs::path& library, const fs::path& file) {
  // Started only by the host trip's child (TripProcess): anything else is a usage error, said once.
  const auto refuse = [](const std::string& why) {
    std::fprintf(stderr, "layerbench lab run-helper host-trip: error: %s (lab 8's child starts this command)\n", why.c_str());
    return 2;
  };
  struct stat info {};
  if (fstat(memory_fd, &info) != 0 || info.st_size < static_cast<off_t>(memory_bytes(1)))
    return refuse("--memory-fd " + std::to_string(memory_fd) + " is not the trip's shared memory");
  int type = 0;
  socklen_t length = sizeof type;
  if (getsockopt(socket_fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_SEQPACKET)
    return refuse("--socket-fd " + std::to_string(socket_fd) + " is not the child's socket");
  const std::int64_t max_n = (static_cast<std::int64_t>(info.st_size) / static_cast<std::int64_t>(sizeof(float)) -
                              kGuardFloats) / 3;
  void* mapped = mmap(nullptr, memory_bytes(max_n), PROT_READ | PROT_WRITE, MAP_SHARED, memory_fd, 0);
  if (mapped == MAP_FAILED) return refuse(system_error("mmap of the trip's shared memory"));
  fcntl(socket_fd, F_SETFD, FD_CLOEXEC);
  fcntl(memory_fd, F_SETFD, FD_CLOEXEC);
  std::unique_ptr<Trip> student;
  try {
    student = load_student_trip(library, file);
  } catch (const std::exception& e) {
    TripReply reply;
    reply.ok = 0;
    copy_text(reply.kind, sizeof reply.kind, "failed");
    copy_text(reply.error, sizeof reply.error, e.what());
    ::send(socket_fd, &reply, sizeof reply, MSG_NOSIGNAL);
    return 1;
  }
  TripReply loaded;
  copy_text(loaded.kind, sizeof loaded.kind, "loaded");
  if (::send(socket_fd, &loaded, sizeof loaded, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof loaded)) return 2;
  TripServer server(socket_fd, static_cast<float*>(mapped), max_n, std::move(student));
  return server.serve();
}

}  // namespace lb::lab
