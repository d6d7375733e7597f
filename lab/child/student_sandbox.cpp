#include "lab/child/student_sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <sched.h>  // CLONE_THREAD, CLONE_NEW*
#include <signal.h>
#include <sys/ioctl.h>  // TIOCSTI, TIOCLINUX
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "lab/child/key_holder.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

StudentIsolation& isolation_of_this_process() {
  static StudentIsolation isolation;
  return isolation;
}

// RLIMIT_NPROC under the separate uid: it counts threads too, and one Python compile with LLVM,
// or one CUDA process, runs a few dozen; a fork bomb stops here.
constexpr rlim_t kStudentProcesses = 1024;
// How long end_student_processes keeps killing before it gives up (a process killed while the GPU
// driver holds it may take a moment to go).
constexpr auto kEndingTime = std::chrono::seconds(10);

// --- the seccomp filter --------------------------------------------------------------------------

#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kAuditArch = 0;  // no filter on another architecture: `filtered` stays false
#endif

constexpr std::uint32_t kSeccompNr = offsetof(seccomp_data, nr);
constexpr std::uint32_t kSeccompArch = offsetof(seccomp_data, arch);
// The low 32 bits of argument `i` (little-endian): a pid, an ioctl's request and clone's flags
// that matter are all there (the kernel reads pid_t and unsigned int arguments as 32 bits).
constexpr std::uint32_t arg_low(int i) { return offsetof(seccomp_data, args) + 8 * static_cast<std::uint32_t>(i); }

constexpr std::uint32_t errno_of(int error) { return SECCOMP_RET_ERRNO | (static_cast<std::uint32_t>(error) & SECCOMP_RET_DATA); }

// The program, built in the forked process itself (its pid is one of the values): plain stores
// into a fixed array, no allocation, so that it is async-signal-safe after a fork.
class FilterProgram {
 public:
  explicit FilterProgram(pid_t self, const SandboxRules& rules) noexcept {
    const std::uint32_t pid = static_cast<std::uint32_t>(self), group = static_cast<std::uint32_t>(-self);
    load(kSeccompArch);
    jump(BPF_JEQ, kAuditArch, 1, 0);
    give(errno_of(ENOSYS));  // a 32-bit system call: its numbers are not these
    load(kSeccompNr);
#if defined(__x86_64__)
    jump(BPF_JGE, 0x40000000u, 0, 1);  // __X32_SYSCALL_BIT: the x32 numbers
    give(errno_of(ENOSYS));
#endif
    const std::uint32_t own_pid_or_group[] = {0, pid, group};
    only(__NR_kill, 0, own_pid_or_group, 3);
    only(__NR_rt_sigqueueinfo, 0, own_pid_or_group, 3);
    only(__NR_tgkill, 0, &pid, 1);
    only(__NR_rt_tgsigqueueinfo, 0, &pid, 1);
    const std::uint32_t new_or_own_group[] = {0, pid};  // never the grader's group, in its session
    only(__NR_setpgid, 1, new_or_own_group, 2);
    const std::uint32_t keystrokes[] = {TIOCSTI, TIOCLINUX};
    never(__NR_ioctl, 1, keystrokes, 2);
    for (const long nr : {
#ifdef __NR_pidfd_send_signal
             static_cast<long>(__NR_pidfd_send_signal),
#endif
#ifdef __NR_pidfd_getfd
             static_cast<long>(__NR_pidfd_getfd),
#endif
#ifdef __NR_userfaultfd
             static_cast<long>(__NR_userfaultfd),
#endif
             static_cast<long>(__NR_tkill), static_cast<long>(__NR_ptrace), static_cast<long>(__NR_process_vm_readv),
             static_cast<long>(__NR_process_vm_writev), static_cast<long>(__NR_kcmp), static_cast<long>(__NR_unshare),
             static_cast<long>(__NR_setns), static_cast<long>(__NR_bpf), static_cast<long>(__NR_perf_event_open),
             static_cast<long>(__NR_keyctl), static_cast<long>(__NR_add_key), static_cast<long>(__NR_request_key)})
      deny(nr, EPERM);
#ifdef __NR_clone3
    deny(__NR_clone3, ENOSYS);  // its flags are behind a pointer; glibc then uses clone
#endif
    // No namespace of its own, even where it may start processes.
    deny_bits(__NR_clone, 0,
              CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET);
    if (!rules.new_processes) {
#ifdef __NR_fork
      deny(__NR_fork, EPERM);
#endif
#ifdef __NR_vfork
      deny(__NR_vfork, EPERM);
#endif
      threads_only(__NR_clone);
    }
    give(SECCOMP_RET_ALLOW);
  }
  bool fits() const noexcept { return size_ <= kCapacity; }
  sock_fprog program() noexcept { return {static_cast<unsigned short>(size_), code_}; }

 private:
  static constexpr std::size_t kCapacity = 128;
  void add(std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) noexcept {
    if (size_ < kCapacity) code_[size_] = sock_filter{code, jt, jf, k};
    ++size_;
  }
  void load(std::uint32_t offset) noexcept { add(BPF_LD | BPF_W | BPF_ABS, offset, 0, 0); }
  void jump(std::uint16_t op, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) noexcept {
    add(BPF_JMP | op | BPF_K, k, jt, jf);
  }
  void give(std::uint32_t action) noexcept { add(BPF_RET | BPF_K, action, 0, 0); }
  // Each block starts with the number in the accumulator and either returns or leaves it there.
  void deny(long nr, int error) noexcept {
    jump(BPF_JEQ, static_cast<std::uint32_t>(nr), 0, 1);
    give(errno_of(error));
  }
  // `nr` allowed only with argument `arg` one of `values`; EPERM otherwise.
  void only(long nr, int arg, const std::uint32_t* values, std::uint8_t n) noexcept {
    jump(BPF_JEQ, static_cast<std::uint32_t>(nr), 0, static_cast<std::uint8_t>(n + 3));
    load(arg_low(arg));
    for (std::uint8_t i = 0; i < n; ++i) jump(BPF_JEQ, values[i], static_cast<std::uint8_t>(n - i), 0);
    give(errno_of(EPERM));
    give(SECCOMP_RET_ALLOW);
  }
  // `nr` refused (EPERM) with argument `arg` one of `values`; allowed otherwise.
  void never(long nr, int arg, const std::uint32_t* values, std::uint8_t n) noexcept {
    jump(BPF_JEQ, static_cast<std::uint32_t>(nr), 0, static_cast<std::uint8_t>(n + 3));
    load(arg_low(arg));
    for (std::uint8_t i = 0; i < n; ++i) jump(BPF_JEQ, values[i], static_cast<std::uint8_t>(n - i), 0);
    give(SECCOMP_RET_ALLOW);
    give(errno_of(EPERM));
  }
  // `nr` refused (EPERM) with any of `bits` in argument `arg`; the next block's otherwise.
  void deny_bits(long nr, int arg, std::uint32_t bits) noexcept {
    jump(BPF_JEQ, static_cast<std::uint32_t>(nr), 0, 4);
    load(arg_low(arg));
    jump(BPF_JSET, bits, 0, 1);
    give(errno_of(EPERM));
    load(kSeccompNr);
  }
  // clone only with CLONE_THREAD: a thread, not a process.
  void threads_only(long nr) noexcept {
    jump(BPF_JEQ, static_cast<std::uint32_t>(nr), 0, 4);
    load(arg_low(0));
    jump(BPF_JSET, CLONE_THREAD, 1, 0);
    give(errno_of(EPERM));
    give(SECCOMP_RET_ALLOW);
  }
  sock_filter code_[kCapacity] = {};
  std::size_t size_ = 0;
};

// Installs the filter for this process (async-signal-safe). False when it could not.
bool install_filter(const SandboxRules& rules) noexcept {
  if (kAuditArch == 0) return false;
  FilterProgram filter(getpid(), rules);
  if (!filter.fits()) return false;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  sock_fprog program = filter.program();
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0u, &program) == 0) return true;
  // A kernel before seccomp(2) (3.17) takes a filter through prctl since 3.5.
  return errno == ENOSYS && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) == 0;
}

// --- switching to the student's uid ---------------------------------------------------------------

bool become_student(uid_t uid, gid_t gid) noexcept {
  if (setgroups(0, nullptr) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) return false;
  uid_t r, e, s;
  gid_t rg, eg, sg;
  return getresuid(&r, &e, &s) == 0 && getresgid(&rg, &eg, &sg) == 0 && r == uid && e == uid && s == uid &&
         rg == gid && eg == gid && sg == gid;
}

// The bounding set, emptied while this process may still drop it (root, CAP_SETPCAP): after the
// switch it may not, and the exec of a program with file capabilities would be bounded by it.
bool drop_bounding_set() noexcept {
  for (int cap = 0; cap < 64; ++cap) {
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) return true;  // EINVAL: past the last capability
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) return false;
  }
  return true;
}

// Runs `probe` in a forked process and returns its exit status (-1 when it did not exit). The
// probe makes only system calls: this process may have threads.
template <class Probe>
int in_forked_process(Probe probe) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) _exit(probe());
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Why the filter cannot be installed here; empty when a forked process installed it.
std::string filter_unavailable_reason() {
  if (kAuditArch == 0) return "the seccomp filter is written for x86_64 and aarch64 only";
  const int status = in_forked_process([] { return install_filter({.new_processes = true}) ? 0 : (errno & 0xff); });
  if (status == 0) return "";
  return std::string("the seccomp filter cannot be installed here (") +
         (status > 0 ? std::strerror(status) : "its probe did not exit") + "; Linux 3.5 or later with CONFIG_SECCOMP_FILTER)";
}

// Every number in /proc/*/status's line `key` (e.g. "Uid:": real, effective, saved, file system).
std::set<unsigned long> ids_in_use(const char* key) {
  std::set<unsigned long> ids;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.starts_with(key)) {
        std::istringstream numbers(line.substr(std::strlen(key)));
        for (unsigned long id; numbers >> id;) ids.insert(id);
        break;
      }
  }
  return ids;
}

// Whether `id` is inside this user namespace's map (/proc/self/uid_map or gid_map: "inside outside
// count" lines); true where the file cannot be read (a kernel without user namespaces maps all).
bool mapped_here(const char* map, unsigned long id) {
  std::ifstream in(map);
  if (!in) return true;
  for (unsigned long inside, outside, count; in >> inside >> outside >> count;)
    if (id >= inside && id - inside < count) return true;
  return false;
}

// A uid (and gid, the same number) of the grade's own: derived from this process's pid, stepping
// on past one in use; nullopt when none of the range is free.
std::optional<unsigned> free_student_id() {
  const std::set<unsigned long> uids = ids_in_use("Uid:"), gids = ids_in_use("Gid:");
  const unsigned start = static_cast<unsigned>(getpid()) % kStudentIdSpan;
  for (unsigned step = 0; step < 1000; ++step) {
    const unsigned id = kStudentIdBase + (start + step) % kStudentIdSpan;
    if (uids.contains(id) || gids.contains(id) || getpwuid(id) != nullptr || getgrgid(id) != nullptr) continue;
    if (!mapped_here("/proc/self/uid_map", id) || !mapped_here("/proc/self/gid_map", id)) continue;
    return id;
  }
  return std::nullopt;
}

// `program` as execve finds it: a name without a slash searched on the PATH; then its target.
fs::path resolved_program(const fs::path& program) {
  fs::path found = program;
  if (program.string().find('/') == std::string::npos) {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (access((fs::path(dir) / program).c_str(), X_OK) == 0) {
        found = fs::path(dir) / program;
        break;
      }
  }
  std::error_code ec;
  const fs::path canonical = fs::canonical(found, ec);
  return ec ? found : canonical;
}

// Why `id` cannot open and execute `program` (its exec needs both); empty when it can.
std::string why_cannot_run(unsigned id, const fs::path& program) {
  const std::string path = program.string();
  const char* text = path.c_str();
  const int status = in_forked_process([id, text] {
    if (!become_student(id, id)) return 255;
    const int fd = open(text, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno & 0xff;
    close(fd);
    return access(text, X_OK) == 0 ? 0 : (errno & 0xff);
  });
  if (status == 0) return "";
  if (status == 255 || status < 0) return "a process cannot switch to it";
  return "it cannot execute " + path + " (" + std::strerror(status) + ")";
}

void throw_call_failed(const std::string& call, int error) { throw std::runtime_error(call + " failed: " + std::strerror(error)); }

// One pass of SIGKILL to every process of the student's uid, from a forked process that becomes
// that uid (kill(-1) reaches every process its user may signal, but itself and init).
void kill_every_process_of(const StudentIsolation& isolation) {
  const uid_t uid = isolation.uid;
  const gid_t gid = isolation.gid;
  const int status = in_forked_process([uid, gid] {
    if (!become_student(uid, gid)) return 1;
    kill(-1, SIGKILL);  // ESRCH: none left; success also on a zombie, which only its reaping ends
    return 0;
  });
  if (status != 0)
    throw std::runtime_error("cannot end the student's processes: a process of ours could not become uid " +
                             std::to_string(uid));
}

// A live (not zombie) process of `uid` (real, effective or saved); 0 when there is none.
pid_t live_process_of(uid_t uid) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    char state = 0;
    bool of_uid = false;
    for (std::string line; std::getline(status, line);) {
      if (line.starts_with("State:")) std::sscanf(line.c_str(), "State: %c", &state);
      if (line.starts_with("Uid:")) {
        unsigned long r = 0, e = 0, s = 0;
        of_uid = std::sscanf(line.c_str(), "Uid: %lu %lu %lu", &r, &e, &s) == 3 && (r == uid || e == uid || s == uid);
        break;  // State comes before Uid
      }
    }
    if (of_uid && state != 'Z' && state != 'X' && state != 0) return static_cast<pid_t>(std::stol(name));
  }
  return 0;
}

}  // namespace

const StudentIsolation& student_isolation() { return isolation_of_this_process(); }
void set_student_isolation(StudentIsolation isolation) { isolation_of_this_process() = std::move(isolation); }

bool isolation_is_full(const StudentIsolation& isolation) { return isolation.separate_user && isolation.filtered; }

StudentIsolation choose_student_isolation(const fs::path& student_executable) {
  StudentIsolation isolation;
  const std::string no_filter = filter_unavailable_reason();
  isolation.filtered = no_filter.empty();
  std::string no_user;
  if (geteuid() != 0) {
    no_user = "not root";
  } else if (const std::optional<unsigned> id = free_student_id(); !id) {
    no_user = "no uid in " + std::to_string(kStudentIdBase) + ".." + std::to_string(kStudentIdBase + kStudentIdSpan - 1) +
              " is free and mapped here";
  } else if (const std::string why = why_cannot_run(*id, resolved_program(student_executable)); !why.empty()) {
    no_user = "a user of the grade's own (uid " + std::to_string(*id) + ") would run it, but " + why;
  } else {
    isolation.separate_user = true;
    isolation.uid = *id;
    isolation.gid = *id;
  }
  std::string& d = isolation.description;
  if (isolation.separate_user)
    d = "the student's code runs as uid " + std::to_string(isolation.uid) + ", a user of this grade's own";
  else
    d = "the student's code runs as the grader's own user (uid " + std::to_string(geteuid()) +
        (geteuid() == 0 ? ", with no capability" : "") + "), where it can write the grader's files: " + no_user;
  d += isolation.filtered ? "; under the seccomp filter" : "; without the seccomp filter: " + no_filter;
  return isolation;
}

std::string isolation_word(const StudentIsolation& isolation) {
  std::string word = isolation.separate_user
                         ? "user:" + std::to_string(isolation.uid) + ":" + std::to_string(isolation.gid)
                         : std::string("grader");
  return word + (isolation.filtered ? ":filtered" : ":unfiltered");
}

StudentIsolation parse_isolation_word(const std::string& word) {
  StudentIsolation isolation;
  const std::size_t last = word.rfind(':');
  const std::string who = last == std::string::npos ? "" : word.substr(0, last);
  const std::string filter = last == std::string::npos ? "" : word.substr(last + 1);
  unsigned long uid = 0, gid = 0;
  char end = 0;
  if (filter != "filtered" && filter != "unfiltered")
    throw std::invalid_argument("--student-isolation " + word + ": not USER:filtered or USER:unfiltered");
  isolation.filtered = filter == "filtered";
  if (who == "grader") {
    isolation.description = "the grader's own user";
  } else if (std::sscanf(who.c_str(), "user:%lu:%lu%c", &uid, &gid, &end) == 2 && uid != 0 && gid != 0 &&
             who.find_first_of("-+ ") == std::string::npos && uid <= 0xFFFFFFFEul && gid <= 0xFFFFFFFEul) {
    isolation.separate_user = true;
    isolation.uid = static_cast<uid_t>(uid);
    isolation.gid = static_cast<gid_t>(gid);
    isolation.description = "uid " + std::to_string(uid);
  } else {
    throw std::invalid_argument("--student-isolation " + word + ": the user is not 'grader' nor 'user:UID:GID'");
  }
  isolation.description += isolation.filtered ? ", filtered" : ", unfiltered";
  return isolation;
}

bool enter_student_sandbox(const StudentIsolation& isolation, const SandboxRules& rules) noexcept {
  // A session of its own where it can have one (no controlling terminal: nothing to inject
  // keystrokes into, no group of the grader's to join); else, already a group leader, a group.
  if (setsid() < 0 && setpgid(0, 0) != 0) return false;
  if (isolation.separate_user) {
    int death_signal = 0;
    if (prctl(PR_GET_PDEATHSIG, &death_signal, 0, 0, 0) != 0) return false;
    const rlimit processes{kStudentProcesses, kStudentProcesses};
    if (setrlimit(RLIMIT_NPROC, &processes) != 0) return false;
    if (!drop_bounding_set() || !become_student(isolation.uid, isolation.gid)) return false;
    // The kernel clears the parent-death signal when the credentials change: set again.
    if (death_signal != 0 && prctl(PR_SET_PDEATHSIG, death_signal, 0, 0, 0) != 0) return false;
  }
  if (!give_up_every_capability()) return false;
  return !isolation.filtered || install_filter(rules);
}

void hand_to_student(const fs::path& path, const StudentIsolation& isolation) {
  if (!isolation.separate_user) return;
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) throw_call_failed("lstat(" + path.string() + ")", errno);
  if (S_ISDIR(info.st_mode)) {
    // The folder and what we put in it (never following a link) become the student's.
    if (lchown(path.c_str(), isolation.uid, isolation.gid) != 0) throw_call_failed("chown(" + path.string() + ")", errno);
    if (chmod(path.c_str(), 0700) != 0) throw_call_failed("chmod(" + path.string() + ")", errno);
    std::error_code ec;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
      if (lchown(it->path().c_str(), isolation.uid, isolation.gid) != 0) throw_call_failed("chown(" + it->path().string() + ")", errno);
    if (ec) throw std::runtime_error("cannot list " + path.string() + ": " + ec.message());
    return;
  }
  if (!S_ISREG(info.st_mode)) throw std::runtime_error(path.string() + ": neither a folder nor a regular file");
  // A file to read (or run): its group becomes the student's, readable (and executable where its
  // owner may execute it); its folder (one of ours, never the student's own) searchable by that group.
  const mode_t read = S_IRGRP | ((info.st_mode & S_IXUSR) ? S_IXGRP : 0);
  if (chown(path.c_str(), static_cast<uid_t>(-1), isolation.gid) != 0 || chmod(path.c_str(), (info.st_mode & 07777) | read) != 0)
    throw_call_failed("chown/chmod(" + path.string() + ")", errno);
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  struct stat folder_info {};
  if (stat(folder.c_str(), &folder_info) != 0) throw_call_failed("stat(" + folder.string() + ")", errno);
  if (chown(folder.c_str(), static_cast<uid_t>(-1), isolation.gid) != 0 ||
      chmod(folder.c_str(), (folder_info.st_mode & 07777) | S_IXGRP) != 0)
    throw_call_failed("chown/chmod(" + folder.string() + ")", errno);
}

std::vector<pid_t> children_of_this_process() {
  std::vector<pid_t> children;
  const pid_t self = getpid();
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    std::getline(stat, text);
    const std::size_t paren = text.rfind(')');
    if (paren == std::string::npos) continue;  // gone meanwhile
    char state = 0;
    long parent = 0;
    if (std::sscanf(text.c_str() + paren + 1, " %c %ld", &state, &parent) == 2 && parent == self)
      children.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return children;
}

void end_student_processes(const StudentIsolation& isolation, const std::vector<pid_t>& spared) {
  const std::set<pid_t> kept(spared.begin(), spared.end());
  const auto deadline = std::chrono::steady_clock::now() + kEndingTime;
  for (;;) {
    if (isolation.separate_user) kill_every_process_of(isolation);
    // What this process adopted as a subreaper (a double fork, a setsid daemon whose parent died),
    // or its own children the student's code ran in: killed and reaped; what a killed one had
    // started is adopted in turn, and found on the next pass.
    pid_t left = 0;
    for (const pid_t child : children_of_this_process()) {
      if (kept.contains(child)) continue;
      kill(child, SIGKILL);
      if (waitpid(child, nullptr, WNOHANG) == 0) left = child;  // not gone yet
    }
    if (left == 0 && isolation.separate_user) left = live_process_of(isolation.uid);
    if (left == 0) return;
    if (std::chrono::steady_clock::now() >= deadline)
      throw std::runtime_error("a process the student's code started (pid " + std::to_string(left) +
                               ") is still alive after " + std::to_string(kEndingTime.count()) + " s of SIGKILL");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace lb::lab
