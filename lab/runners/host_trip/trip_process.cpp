#include "lab/runners/host_trip/trip_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/close_range.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <csignal>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "common/gpu.h"
#include "lab/child/student_program.h"  // StudentCompileError
#include "lab/child/student_sandbox.h"
#include "lab/runners/compile_process.h"  // WorkingFolder
#include "lab/runners/host_trip/trip_build.h"
#include "lab/runners/host_trip/trip_ours.h"

extern char** environ;

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

enum Op : std::int32_t { kOpen = 1, kRun, kGo, kClose, kAbandon };

struct Command {
  std::int32_t op = 0;
  std::int32_t who = 0;
  std::int64_t n = 0;
};

std::string system_error(const std::string& what) { return what + ": " + std::strerror(errno); }

// How long, after a "ran" whose c fails the end sample, the child watches for c to be finished
// after all (finish_ran): what tells an early "ran" from a wrong result. Only a trip that fails
// waits it.
constexpr std::chrono::milliseconds kLateCGrace{1000};

std::size_t page_rounded(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

}  // namespace

TripLayout trip_layout(std::int64_t max_n) {
  if (max_n < 1) throw std::logic_error("a trip layout for no elements");
  TripLayout layout;
  layout.max_n = max_n;
  const std::size_t input = page_rounded(static_cast<std::size_t>(max_n) * sizeof(float));
  layout.a = 0;
  layout.b = input;
  layout.c = 2 * input;
  layout.bytes = layout.c + page_rounded(static_cast<std::size_t>(max_n + kGuardFloats) * sizeof(float));
  return layout;
}

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

// One trip opened at n elements: a, b and c are the shared memory's regions, each page-locked
// where the trip's host_alloc gave pinned memory for it, and lab_setup(n) after them; lab_teardown
// and the regions unregistered when released.
class OpenTrip {
 public:
  OpenTrip(Trip& trip, std::int64_t n, std::array<float*, 3> regions) : trip_(trip), n_(n), regions_(regions) {
    try {
      const std::array<const char*, 3> names = {"a", "b", "c"};
      for (std::size_t i = 0; i < 3; ++i) choose_memory(i, names[i]);
      if (const cudaError_t status = trip.setup(n); status != cudaSuccess) {
        trip.teardown();  // what it did allocate
        require(status, "lab_setup(" + std::to_string(n) + ")");
      }
      set_up_ = true;
    } catch (...) {
      unregister();
      throw;
    }
  }
  ~OpenTrip() {
    if (set_up_) trip_.teardown();  // its error ignored: abandoned
    unregister();
  }
  OpenTrip(const OpenTrip&) = delete;
  OpenTrip& operator=(const OpenTrip&) = delete;

  std::int64_t n() const { return n_; }
  float* a() const { return regions_[0]; }
  float* b() const { return regions_[1]; }
  float* c() const { return regions_[2]; }
  Trip& trip() const { return trip_; }
  void pinned(std::int32_t* out) const {
    for (std::size_t i = 0; i < 3; ++i) out[i] = is_pinned(regions_[i]);
  }
  // lab_teardown, checked.
  void close() {
    set_up_ = false;
    const cudaError_t status = trip_.teardown();
    unregister();
    require(status, "lab_teardown()");
  }

 private:
  std::size_t bytes(std::size_t i) const {
    return static_cast<std::size_t>(i == 2 ? n_ + kGuardFloats : n_) * sizeof(float);
  }
  // The student's choice of memory for buffer i, honoured on the shared region: their buffer is
  // asked for and given back at once.
  void choose_memory(std::size_t i, const char* name) {
    void* p = trip_.host_alloc(bytes(i));
    if (!p)
      throw TripError("lab_host_alloc(" + std::to_string(bytes(i)) + ") returned a null pointer (for " + name + ")");
    cudaPointerAttributes attributes{};
    const bool known = cudaPointerGetAttributes(&attributes, p) == cudaSuccess;
    cudaGetLastError();
    if (known && (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged)) {
      trip_.host_free(p);
      throw TripError(std::string("lab_host_alloc returned GPU memory for ") + name +
                      ": the runner writes a and b and reads c on the host; allocate host memory (cudaMallocHost)");
    }
    const bool pinned = known && attributes.type == cudaMemoryTypeHost;
    trip_.host_free(p);
    if (!pinned) return;
    require(cudaHostRegister(regions_[i], bytes(i), cudaHostRegisterDefault),
            std::string("cudaHostRegister of the runner's ") + name + " (lab_host_alloc gave pinned memory for it)");
    registered_[i] = true;
  }
  void unregister() {
    for (std::size_t i = 0; i < 3; ++i)
      if (registered_[i]) {
        cudaHostUnregister(regions_[i]);
        cudaGetLastError();
        registered_[i] = false;
      }
  }

  Trip& trip_;
  std::int64_t n_;
  std::array<float*, 3> regions_;
  std::array<bool, 3> registered_{};
  bool set_up_ = false;
};

class TripServer {
 public:
  // `student`: the student's trip, or null for a process of ours alone.
  TripServer(int socket, char* memory, const TripLayout& layout, std::unique_ptr<Trip> student)
      : socket_(socket), memory_(memory), layout_(layout), student_(std::move(student)) {
    if (!student_) ours_ = make_our_trip();
  }

  // Serves commands until the child closes the socket: 0, or 2 for a command out of place (a
  // command for the other trip among them: ours never runs in the student's process, nor theirs
  // in ours).
  int serve() {
    for (Command command; receive(command);) {
      const TripOf mine = student_ ? TripOf::kStudent : TripOf::kOurs;
      if (command.who != (mine == TripOf::kOurs ? 1 : 0)) return 2;
      TripReply reply;
      try {
        switch (command.op) {
          case kOpen:
            if (command.n < 1 || command.n > layout_.max_n) return 2;
            open_.reset();
            open_.emplace(student_ ? *student_ : *ours_, command.n, regions());
            open_->pinned(reply.pinned);
            send("opened", reply);
            break;
          case kRun:
            if (!open_ || command.n != open_->n()) return 2;
            if (!run(*open_)) return 2;
            break;
          case kClose:
            if (!open_) return 2;
            open_->close();
            open_.reset();
            send("closed", reply);
            break;
          case kAbandon:
            open_.reset();
            send("closed", reply);
            break;
          default:
            return 2;
        }
      } catch (const TripError& e) {
        open_.reset();
        failed(e.what());
      }
    }
    return 0;
  }

 private:
  std::array<float*, 3> regions() const {
    return {reinterpret_cast<float*>(memory_ + layout_.a), reinterpret_cast<float*>(memory_ + layout_.b),
            reinterpret_cast<float*>(memory_ + layout_.c)};
  }

  // false when the command after "ready" is not "go".
  bool run(OpenTrip& open) {
    // Nothing left running when the clock starts (a kernel from lab_setup, say): the child writes
    // this trip's a and b only after "ready" and the start mark.
    require(cudaDeviceSynchronize(), "GPU work left over from lab_setup or the trip before (cudaDeviceSynchronize)");
    TripReply ready;
    send("ready", ready);
    Command go;
    if (!receive(go) || go.op != kGo) return false;
    const cudaError_t status = open.trip().trip(open.a(), open.b(), open.c(), open.n());
    const cudaError_t finished = cudaDeviceSynchronize();
    if (status != cudaSuccess) throw TripError("lab_trip returned " + cuda_text(status));
    if (finished != cudaSuccess)
      throw TripError("the trip's GPU work (cudaDeviceSynchronize after lab_trip) returned " + cuda_text(finished));
    if (const cudaError_t launch = cudaGetLastError(); launch != cudaSuccess)
      throw TripError("a launch in lab_trip (cudaGetLastError after it) returned " + cuda_text(launch));
    TripReply ran;
    send("ran", ran);
    return true;
  }

  void failed(const std::string& error) {
    TripReply reply;
    reply.ok = 0;
    copy_text(reply.error, sizeof reply.error, error);
    copy_text(reply.fault, sizeof reply.fault, cuda_context_fault());
    send("failed", reply);
  }

  bool receive(Command& command) {
    const ssize_t got = recv(socket_, &command, sizeof command, 0);
    return got == static_cast<ssize_t>(sizeof command);
  }
  void send(const char* kind, TripReply& reply) {
    copy_text(reply.kind, sizeof reply.kind, kind);
    if (::send(socket_, &reply, sizeof reply, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof reply)) std::_Exit(2);
  }

  int socket_;
  char* memory_;
  TripLayout layout_;
  std::unique_ptr<Trip> student_;
  std::unique_ptr<Trip> ours_;
  std::optional<OpenTrip> open_;  // after the trips: torn down first
};

}  // namespace

// ---- The child's side --------------------------------------------------------------------------

namespace {

// The trip process's environment: what finds CUDA, its libraries and its tools (compute-sanitizer
// follows the processes of a check it runs through its CUDA_ and NV_ variables and LD_PRELOAD, all
// the grader's own), and HOME and TMPDIR its folder; nothing else of the child's.
std::vector<std::string> trip_environment(const fs::path& home) {
  std::vector<std::string> environment;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view v(*entry);
    if (v.starts_with("PATH=") || v.starts_with("LD_LIBRARY_PATH=") || v.starts_with("LD_PRELOAD=") ||
        v.starts_with("CUDA_") || v.starts_with("NV_"))
      environment.emplace_back(v);
  }
  environment.push_back("HOME=" + home.string());
  environment.push_back("TMPDIR=" + home.string());
  return environment;
}

}  // namespace

TripProcess::TripProcess(const fs::path& program, const fs::path& library, const fs::path& file, std::int64_t max_n)
    : layout_(trip_layout(max_n)) {
  // The library and its folder, readable by the student's uid (the build's folder is private).
  start(program, {library.string(), file.string()}, {library.parent_path(), library});
}

TripProcess::TripProcess(const fs::path& program, std::int64_t max_n) : ours_only_(true), layout_(trip_layout(max_n)) {
  start(program, {"--ours"}, {});
}

void TripProcess::start(const fs::path& program, std::vector<std::string> words, const std::vector<fs::path>& handed) {
  const StudentIsolation& isolation = student_isolation();
  // Its own HOME and TMPDIR (what the CUDA runtime caches, what the student's code writes), the
  // student's; the same for ours alone, which runs no student code: one way to start either.
  home_ = std::make_unique<WorkingFolder>("trip");
  hand_to_student(home_->path(), isolation);
  for (const fs::path& path : handed) hand_to_student(path, isolation);
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0)
    throw std::runtime_error(system_error("socketpair for the trip process"));
  socket_ = sockets[0];
  const int memory = memfd_create("lb-trip-data", MFD_CLOEXEC);
  if (memory < 0 || ftruncate(memory, static_cast<off_t>(layout_.bytes)) != 0) {
    const std::string why = system_error("memfd for the trip's data");
    if (memory >= 0) ::close(memory);
    ::close(sockets[1]);
    ::close(socket_);
    socket_ = -1;
    throw std::runtime_error(why);
  }
  void* mapped = mmap(nullptr, layout_.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0);
  // The two descriptors the trip process keeps (not close-on-exec), and its argv, made before the fork.
  const int their_socket = fcntl(sockets[1], F_DUPFD, 3);
  const int their_memory = fcntl(memory, F_DUPFD, 3);
  ::close(sockets[1]);
  ::close(memory);
  if (mapped == MAP_FAILED || their_socket < 0 || their_memory < 0) {
    const std::string why = system_error("the trip process's descriptors or shared memory");
    if (their_socket >= 0) ::close(their_socket);
    if (their_memory >= 0) ::close(their_memory);
    if (mapped != MAP_FAILED) munmap(mapped, layout_.bytes);
    ::close(socket_);
    socket_ = -1;
    throw std::runtime_error(why);
  }
  memory_ = static_cast<char*>(mapped);
  words.insert(words.begin(), {program.string(), "lab", "run-helper", "host-trip"});
  for (const std::string& w : {std::string("--socket-fd"), std::to_string(their_socket), std::string("--memory-fd"),
                               std::to_string(their_memory), std::string("--elements"), std::to_string(layout_.max_n)})
    words.push_back(w);
  std::vector<std::string> environment = trip_environment(home_->path());
  std::vector<char*> argv, envp;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = getpid();
  std::fflush(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    // The student's sandbox (student_sandbox.h): its own process group, the student's uid where
    // there is one, no capability (as root, its exec would otherwise give it every one,
    // CAP_SYS_PTRACE among them), the seccomp filter: it can signal, trace or stop no process of
    // the grader's, and start no process.
    if (!enter_student_sandbox(isolation, {.new_processes = false})) {
      static constexpr char kWhy[] = "layerbench: the trip process could not enter the student's sandbox "
                                     "(student_sandbox.h): it does not load the library\n";
      (void)!write(STDERR_FILENO, kWhy, sizeof kWhy - 1);
      _exit(127);
    }
    // After the switch of uid, which clears it: the child gone (killed at its time limit), this goes too.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
    // No descriptor of the child's but the standard ones and these two reaches the trip process.
    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0 || fcntl(their_socket, F_SETFD, 0) != 0 ||
        fcntl(their_memory, F_SETFD, 0) != 0)
      _exit(127);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // its copy on 0 stays open
    if (null < 0 || dup2(null, STDIN_FILENO) < 0) _exit(127);
    // A fresh image: nothing of this process's memory, its keys among it, comes along.
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  const int fork_errno = errno;
  ::close(their_socket);
  ::close(their_memory);
  if (pid_ < 0) {
    munmap(memory_, layout_.bytes);
    memory_ = nullptr;
    ::close(socket_);
    socket_ = -1;
    errno = fork_errno;
    throw std::runtime_error(system_error("fork of the trip process"));
  }
  setpgid(pid_, pid_);  // as it does itself (whichever runs first): end() kills its group
}

TripProcess::~TripProcess() {
  try {
    end();
  } catch (const std::exception&) {  // a destructor: how it ended is of no use here
  }
  if (memory_) munmap(memory_, layout_.bytes);
}

std::string TripProcess::end() {
  if (socket_ >= 0) ::close(socket_);
  socket_ = -1;
  std::string how;
  if (pid_ > 0) {
    // Waited for without reaping it (WNOWAIT): while it is a zombie its pid and group stay its own,
    // so kill(-pid) reaches no one else's.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    siginfo_t info{};
    for (;;) {
      info.si_pid = 0;
      const int waited = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
      if (waited == 0 && info.si_pid == pid_) break;
      if (waited != 0 && errno != EINTR) break;  // not ours to wait for: nothing left to do
      if (std::chrono::steady_clock::now() >= deadline) {
        how = "it did not exit when its socket was closed, and was killed";
        kill(-pid_, SIGKILL);
        kill(pid_, SIGKILL);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    kill(-pid_, SIGKILL);  // whatever else is left in its group
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    if (how.empty()) {
      if (WIFSIGNALED(status))
        how = "it crashed (signal " + std::to_string(WTERMSIG(status)) + ", " + strsignal(WTERMSIG(status)) + ")";
      else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        how = "it exited with status " + std::to_string(WEXITSTATUS(status));
    }
    pid_ = -1;
  }
  home_.reset();
  return how;
}

std::span<float> TripProcess::region(std::size_t offset, std::int64_t n) const {
  if (n < 0 || n > layout_.max_n || !memory_) throw std::logic_error("a trip larger than the trip process's shared memory");
  return {reinterpret_cast<float*>(memory_ + offset), static_cast<std::size_t>(n)};
}

void TripProcess::send(int op, TripOf who, std::int64_t n) {
  const Command command{op, who == TripOf::kOurs ? 1 : 0, n};
  if (socket_ < 0 || ::send(socket_, &command, sizeof command, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof command))
    throw std::runtime_error(system_error("the trip process (which runs the student's code) stopped"));
}

TripReply TripProcess::receive(const char* expected) {
  TripReply reply;
  // Waited for in slices: a trip process that stopped itself (SIGSTOP, SIGTSTP to its own group,
  // which the sandbox lets it send) would otherwise hold the check until its time limit, and the
  // student read "the kernel did not finish".
  for (pollfd ready{socket_, POLLIN, 0}; socket_ >= 0 && poll(&ready, 1, 100) == 0;) {
    siginfo_t info{};
    if (pid_ > 0 && waitid(P_PID, static_cast<id_t>(pid_), &info, WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid_ && info.si_code == CLD_STOPPED) {
      const int stopped_by = info.si_status;
      kill(pid_, SIGKILL);  // still unreaped, so still its pid
      end();
      out_of_step_ = true;
      throw TripError(std::string("your trip process stopped itself (signal ") + std::to_string(stopped_by) + ", " +
                      strsignal(stopped_by) + "): a trip may not stop the process it runs in");
    }
  }
  const ssize_t got = socket_ < 0 ? -1 : recv(socket_, &reply, sizeof reply, 0);
  if (got == 0 || got < 0) {
    const std::string how = end();
    throw std::runtime_error("the trip process (which runs the student's code) stopped: " +
                             (how.empty() ? std::string("it closed its end") : how));
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
  if (n < 1 || n > layout_.max_n) throw std::logic_error("a trip larger than the trip process's shared memory");
  if (out_of_step_) throw TripError("the trip process is out of step after a trip that ended early");
  send(kOpen, who, n);
  const TripReply reply = receive("opened");
  return {size, reply.pinned[0] != 0, reply.pinned[1] != 0, reply.pinned[2] != 0};
}

void TripProcess::start_run(TripOf who, std::int64_t n) {
  send(kRun, who, n);
  receive("ready");
}

void TripProcess::go() { send(kGo, TripOf::kStudent, 0); }

void TripProcess::finish_ran(std::int64_t n, const EndSample& sample) {
  receive("ran");
  const std::string early = sample.mismatch(c(n));
  if (early.empty()) return;
  // c is not right at "ran": a "ran" sent early (c finished soon after, by the trip itself), or a
  // trip whose result is wrong (c stays as it is: the device-wide wait came before "ran"). Only the
  // first puts the process out of step; the second is the full verification's to explain, as it
  // always was (the trip fails either way).
  if (sample.met_within(c(n), kLateCGrace)) {
    out_of_step_ = true;
    throw TripError(early);
  }
}

void TripProcess::wait_loaded() {
  try {
    receive("loaded");
  } catch (const TripError& e) {
    throw StudentCompileError(e.what());
  }
}

void TripProcess::close(TripOf who) {
  send(kClose, who, 0);
  receive("closed");
}

void TripProcess::abandon(TripOf who) {
  if (out_of_step_) return;  // its replies no longer match: end() ends it
  send(kAbandon, who, 0);
  receive("closed");
}

int run_trip_process(int socket_fd, int memory_fd, std::int64_t max_n, const fs::path& library, const fs::path& file) {
  // Started only by the host trip's child (TripProcess): anything else is a usage error, said once.
  const auto refuse = [](const std::string& why) {
    std::fprintf(stderr, "layerbench lab run-helper host-trip: error: %s (lab 8's child starts this command)\n", why.c_str());
    return 2;
  };
  if (max_n < 1) return refuse("--elements " + std::to_string(max_n) + " is not a number of elements");
  const TripLayout layout = trip_layout(max_n);
  struct stat info {};
  if (fstat(memory_fd, &info) != 0 || info.st_size != static_cast<off_t>(layout.bytes))
    return refuse("--memory-fd " + std::to_string(memory_fd) + " is not the trip's shared memory for " +
                  std::to_string(max_n) + " elements");
  int type = 0;
  socklen_t length = sizeof type;
  if (getsockopt(socket_fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_SEQPACKET)
    return refuse("--socket-fd " + std::to_string(socket_fd) + " is not the child's socket");
  void* mapped = mmap(nullptr, layout.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memory_fd, 0);
  if (mapped == MAP_FAILED) return refuse(system_error("mmap of the trip's shared memory"));
  fcntl(socket_fd, F_SETFD, FD_CLOEXEC);
  fcntl(memory_fd, F_SETFD, FD_CLOEXEC);
  std::unique_ptr<Trip> student;
  if (!library.empty()) {
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
  }
  TripReply loaded;
  copy_text(loaded.kind, sizeof loaded.kind, "loaded");
  if (::send(socket_fd, &loaded, sizeof loaded, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof loaded)) return 2;
  TripServer server(socket_fd, static_cast<char*>(mapped), layout, std::move(student));
  return server.serve();
}

}  // namespace lb::lab
