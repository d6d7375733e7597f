// Lab 8, the transfer lab (runner host-trip, labs/08-transfer): the rules on the student's text,
// the symbol check through a real nvcc compile, the limiter and the tail feedback on synthetic
// figures, the parent's clock (the watchdog's line arrival times, the trip marks, a grade timed by
// a stand-in child that lies about its own times), the spec, list/start/profile and the rule
// breakers refused without a GPU, each trip's fresh inputs (CPU; the nvcc tests skip without nvcc); the solution graded, the
// skeleton failed (GPU; skipped without one; the planted files are graded by test_lab's planted tests).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/gpu.h"
#include "lab/commands/lab_check.h"
#include "lab/commands/lab_grade.h"
#include "lab/spec/lab_spec.h"
#include "lab/runners/runner.h"
#include "lab/child/student_program.h"
#include "lab/runners/host_trip/trip_build.h"
#include "lab/runners/host_trip/trip_feedback.h"
#include "lab/runners/host_trip/trip_child.h"
#include "lab/runners/host_trip/trip_rules.h"
#include "lab/runners/host_trip/trip_clock.h"
#include "lab/runners/host_trip/trip_process.h"
#include "lab/runners/host_trip/trip_sample.h"
#include "lab/child/grade_keys.h"
#include "lab/child/child_process.h"
#include "lab/child/child_mode.h"
#include "lab/runners/host_trip/trip_event.h"
#include "lab/child/watchdog.h"
#include "lab_test_support.h"
#include "workloads/problem.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;
using nlohmann::json;

const fs::path kLab = kLabs / "08-transfer";
const fs::path kSolution = solution_file("08-transfer", "transfer.cu");
const fs::path kPlanted = wrong_dir("08-transfer");

std::string violations_text(const std::string& source) {
  std::string text;
  for (const RuleViolation& v : source_rule_violations(source)) text += std::to_string(v.line) + ": " + v.what + "\n";
  return text;
}

// --- the rules on the text --------------------------------------------------------------------

TEST(TransferRules, EachBannedConstructIsNamedWithItsLine) {
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"#include <cuda_runtime.h>\n#include <thread>\n", 2, "#include <thread>: only <cuda_runtime.h>"},
      {"#include \"cuda_runtime.h\"\n", 1, "#include of anything but <header>"},
      {"#define H <cstdio>\n#include H\n", 2, "#include of anything but <header>"},
      {"\n#pragma omp parallel for\n", 2, "#pragma: pragmas are not allowed"},
      {"_Pragma(\"omp parallel\")\n", 1, "_Pragma: pragmas are not allowed"},
      {"#include_next <x.h>\n", 1, "#include_next is not allowed"},
      // gcc would print an error's source line from the file named: any file the grader reads.
      {"#line 1 \"/etc/passwd\"\nint x = y;\n", 1, "#line is not allowed"},
      {"\n# 1 \"/etc/passwd\"\n", 2, "line markers (# 12 \"file\") are not allowed"},
      {"void f() { asm(\"nop\"); }\n", 1, "asm: inline assembly is not allowed"},
      {"void f() {\n  __asm__ __volatile__(\"nop\");\n}\n", 2, "__asm__: inline assembly"},
      {"__attribute__((constructor)) void f() {}\n", 1, "__attribute__: attributes are not allowed"},
      {"[[gnu::constructor]] void f() {}\n", 1, "[[...]] attributes are not allowed"},
      {"[ [gnu::alias(\"g\")] ] void f();\n", 1, "[[...]] attributes are not allowed"},
      {"__declspec(dllexport) void f() {}\n", 1, "__declspec: attributes"},
      {"#define CAT(a, b) a##b\n", 1, "token pasting (##) is not allowed"},
      {"void* f() { return __builtin_frame_address(0); }\n", 1, "__builtin_frame_address: compiler builtins"},
      {"extern int runner_state;\n", 1, "extern is allowed only as extern \"C\""},
      {"extern \"C++\" void f();\n", 1, "extern is allowed only as extern \"C\""},
      {"int \\u0061sm;\n", 1, "universal character names"},
      {"const char* s = R\"x(asm)x\";\n", 1, "raw string literals are not allowed"},
      {"// what??/\nint x;\n", 1, "trigraphs"},
  };
  for (const auto& [source, line, expected] : cases) {
    const std::vector<RuleViolation> found = source_rule_violations(source);
    ASSERT_FALSE(found.empty()) << source;
    EXPECT_EQ(found.front().line, line) << source << violations_text(source);
    EXPECT_TRUE(has(found.front().what, expected)) << source << "\n  gave: " << found.front().what;
  }
}

// What a compiler would read as the banned construct, however it is spelled.
TEST(TransferRules, SpellingsThatHideAConstructAreCaught) {
  EXPECT_TRUE(has(violations_text("void f() { as\\\nm(\"nop\"); }\n"), "1: asm: inline assembly")) << "line splice";
  EXPECT_TRUE(has(violations_text("%:pragma omp parallel\n"), "#pragma")) << "digraph #";
  EXPECT_TRUE(has(violations_text("#define C(a, b) a %:%: b\n"), "token pasting")) << "digraph ##";
  EXPECT_TRUE(has(violations_text("<:<:gnu::constructor:>:> void f() {}\n"), "[[...]]")) << "digraph [[";
  EXPECT_TRUE(has(violations_text("/* a comment */ #pragma once\n"), "#pragma")) << "after a comment";
  EXPECT_TRUE(has(violations_text("  #  include <omp.h>\n"), "#include <omp.h>")) << "spaces";
  EXPECT_TRUE(has(violations_text("#define A asm\n"), "asm: inline assembly")) << "in a macro";
  EXPECT_TRUE(has(violations_text("#if 0\nasm(\"nop\");\n#endif\n"), "2: asm")) << "#if 0 hides nothing";
  EXPECT_TRUE(has(violations_text("__attribute((constructor)) void f() {}\n"), "attributes")) << "__attribute";
  EXPECT_TRUE(has(violations_text("extern\n\"C++\" void f();\n"), "extern is allowed only")) << "across lines";
}

TEST(TransferRules, CodeThatMerelyMentionsAConstructPasses) {
  const std::string fine = R"(#include <cuda_runtime.h>
#include <cstdint>
// asm, __attribute__, #pragma and [[ in a comment are fine
/* so is extern int x; in a block comment */
const char* words = "asm __attribute__ #pragma [[x]] ## extern";
const char quote = '"';
const long long big = 1'000'000'000LL;
extern "C" { int f(int* p, int* q) { return p[q[0]] + (int)big; } }
extern "C" cudaError_t lab_setup(long long n);
#define TWICE(x) ((x) + (x))
#define NAME(x) #x
#if defined(__CUDACC__)
__global__ void k(float* a) { a[threadIdx.x] = TWICE(1.0f); }
#endif
)";
  EXPECT_EQ(violations_text(fine), "");
  for (const fs::path& file : {kLab / "transfer.cu", kSolution})
    EXPECT_EQ(violations_text(slurp(file)), "") << file;
}

TEST(TransferRules, TheMessageNamesFileAndLineAndWhereTheRulesAre) {
  const std::string message = source_rules_message("transfer.cu", source_rule_violations("int x;\nasm(\"nop\");\n"));
  EXPECT_TRUE(has(message, "transfer.cu:2: asm: inline assembly is not allowed")) << message;
  EXPECT_TRUE(has(message, "README.md")) << message;
  EXPECT_EQ(source_rules_message("transfer.cu", {}), "");
}

// Every planted file is either refused by the rules with its expectation, or follows them.
TEST(TransferRules, PlantedRuleBreakersAreRefusedTheOthersPass) {
  int refused = 0;
  for (const auto& entry : fs::directory_iterator(kPlanted)) {
    const std::string text = slurp(entry.path());
    const std::string found = violations_text(text);
    const bool breaker = text.rfind("// expect: #include", 0) == 0 || text.rfind("// expect: #line", 0) == 0 ||
                         has(text.substr(0, 80), "inline assembly") ||
                         has(text.substr(0, 80), "attributes are not allowed");
    EXPECT_EQ(!found.empty(), breaker) << entry.path() << "\n" << found;
    refused += breaker;
  }
  EXPECT_GE(refused, 3);
}

// --- the symbol check -------------------------------------------------------------------------

TEST(TransferSymbols, NvccGlueAndTheAllowedCallsPassEverythingElseIsNamed) {
  const std::vector<std::string> undefined = {"cudaMallocHost",  "cudaMemcpyAsync", "__cudaRegisterFatBinary",
                                              "__cudaLaunchKernel", "_Znam",        "__aarch64_ldadd4_acq_rel",
                                              "system",          "pthread_create",  "_ZNSt6thread4joinEv",
                                              "clock_gettime",   "cudaDeviceReset", "cudaSetDevice"};
  const std::vector<std::string> forbidden = forbidden_symbols(undefined);
  EXPECT_EQ(forbidden, (std::vector<std::string>{"system", "pthread_create", "_ZNSt6thread4joinEv", "clock_gettime",
                                                 "cudaDeviceReset", "cudaSetDevice"}));
  const std::string message = forbidden_symbols_message("transfer.cu", forbidden);
  EXPECT_TRUE(has(message, "transfer.cu: calls system, which this lab does not allow")) << message;
  EXPECT_TRUE(has(message, "calls std::thread::join()")) << message;  // demangled
  EXPECT_TRUE(has(message, "cudaMemcpyAsync")) << message;           // what is allowed
}

// The nvcc this build would use, or why the test skips.
std::string nvcc_missing() {
  std::string why;
  return find_nvcc(&why).empty() ? "no nvcc here: " + why : "";
}

class TransferBuild : public LabCliTest {
 protected:
  // Steps 1-3 of the build (rules, nvcc -c, the symbol check): "" when it passes, else the message.
  std::string compile_check(const fs::path& file) const {
    try {
      compile_and_check_student_file(file, dir_ / "student.o", {.sm = 90});
    } catch (const StudentCompileError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(TransferBuild, TheSolutionSkeletonAndTheFilesWrongOnTheGpuCompileAndPassTheSymbolCheck) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  EXPECT_EQ(compile_check(kSolution), "");
  EXPECT_EQ(compile_check(kLab / "transfer.cu"), "");
  for (const char* name : {"pageable.cu", "no_overlap.cu", "too_few_chunks.cu", "short_download.cu",
                           "drops_tail_chunk.cu", "writes_past_end.cu", "uploads_only_changes.cu", "finds_its_seed.cu",
                           // P28's: each reaches libc through memcpy's address, past the rules and the symbol check
                           "says_ran_early.cu", "works_before_clock.cu", "slows_ours.cu", "stops_grader.cu",
                           "leaves_daemon.cu"})
    EXPECT_EQ(compile_check(kPlanted / name), "") << name;
  // What the solution's object calls, read from its ELF symbol table.
  compile_check(kSolution);
  const std::vector<std::string> undefined = undefined_symbols(dir_ / "student.o");
  for (const char* name : {"cudaMallocHost", "cudaMemcpyAsync", "cudaStreamCreateWithFlags", "__cudaRegisterFatBinary"})
    EXPECT_NE(std::find(undefined.begin(), undefined.end(), name), undefined.end()) << name;
  EXPECT_TRUE(forbidden_symbols(undefined).empty());
}

TEST_F(TransferBuild, ForbiddenCallsAreRefusedNamingTheSymbol) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string system_call = compile_check(kPlanted / "calls_system.cu");
  EXPECT_TRUE(has(system_call, "calls_system.cu: calls system, which this lab does not allow")) << system_call;
  const std::string threads = compile_check(kPlanted / "host_threads.cu");
  EXPECT_TRUE(has(threads, "calls pthread_create")) << threads;
  EXPECT_TRUE(has(threads, "calls pthread_join")) << threads;
  // The rules come first: a breaker of both is refused for its text, before nvcc runs.
  const std::string includes = compile_check(kPlanted / "includes_thread.cu");
  EXPECT_TRUE(has(includes, "includes_thread.cu:4: #include <thread>")) << includes;
}

TEST_F(TransferBuild, ACompileErrorNamesTheStudentsFileAndLine) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  write(dir_ / "broken.cu", "#include <cuda_runtime.h>\n\nextern \"C\" void* lab_host_alloc(size_t bytes) { return }\n");
  const std::string message = compile_check(dir_ / "broken.cu");
  EXPECT_TRUE(has(message, "broken.cu(3)")) << message;
}

TEST_F(TransferBuild, AMissingFunctionIsNamed) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  std::string text = slurp(kSolution);
  text = text.substr(0, text.find("extern \"C\" cudaError_t lab_teardown"));
  write(dir_ / "no_teardown.cu", text);
  try {
    const StudentLibrary built = build_student_library(dir_ / "no_teardown.cu", {.sm = 90});
    load_student_trip(built.library, dir_ / "no_teardown.cu");
    FAIL() << "built without lab_teardown";
  } catch (const StudentCompileError& e) {
    EXPECT_TRUE(has(e.what(), "defines no extern \"C\" lab_teardown")) << e.what();
  }
}

// --- the trip process: the student's code runs where no key is -------------------------------

// The readable memory of process `pid` (its /proc/PID/maps and /proc/PID/mem): true when it holds
// the 8 bytes of `value` anywhere.
bool memory_holds(pid_t pid, std::uint64_t value) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream maps(proc + "/maps");
  const int mem = open((proc + "/mem").c_str(), O_RDONLY);
  EXPECT_GE(mem, 0) << "cannot open " << proc << "/mem: " << std::strerror(errno);
  if (mem < 0) return false;
  bool found = false;
  std::vector<char> bytes;
  for (std::string line; !found && std::getline(maps, line);) {
    unsigned long long from = 0, to = 0;
    char permissions[5] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %4s", &from, &to, permissions) != 3 || permissions[0] != 'r') continue;
    if (line.find("[vvar") != std::string::npos || line.find("[vsyscall]") != std::string::npos) continue;
    bytes.resize(to - from);
    const ssize_t got = pread(mem, bytes.data(), bytes.size(), static_cast<off_t>(from));
    if (got <= 0) continue;  // a device mapping, not readable here
    found = memmem(bytes.data(), static_cast<std::size_t>(got), &value, sizeof value) != nullptr;
  }
  close(mem);
  return found;
}

std::string proc_text(pid_t pid, const char* what) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + what, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TripProcessTest : public TransferBuild {
 protected:
  // The trip process of `file`, its library loaded, for trips of up to 1024 elements.
  std::unique_ptr<TripProcess> start(const fs::path& file) {
    library_ = build_student_library(file, {.sm = 90});
    auto process = std::make_unique<TripProcess>(LB_EXE, library_.library, file, 1024);
    process->wait_loaded();
    return process;
  }
  StudentLibrary library_;
};

// The child holds the grade's keys when it starts the trip process (fork and exec of layerbench):
// none of them, nor the secret, may be in the trip process's argv, environment or memory. This
// process plays the child: it holds the keys, and the same scan of its own memory finds them.
TEST_F(TripProcessTest, HoldsNoKeyInItsArgvEnvironmentOrMemory) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = parse_lab_spec(kLab / "lab.json");
  const std::uint64_t secret = std::random_device{}() * 0x9E3779B97F4A7C15ull ^ std::random_device{}();
  const GradeKeys keys = GradeKeys::derive(secret, spec, ChildMode::kTime);
  std::vector<std::uint64_t> held = {secret};
  held.insert(held.end(), keys.judge.begin(), keys.judge.end());
  held.insert(held.end(), keys.samples.begin(), keys.samples.end());
  const std::string keys_text = keys.to_text();
  for (const std::uint64_t key : held) ASSERT_TRUE(memory_holds(getpid(), key)) << "the scan cannot see a key";
  const std::unique_ptr<TripProcess> process = start(kSolution);
  // The scan reads the trip process's memory: it finds what the trip process does hold (the
  // library's path, on its argv, as 8 bytes from the folder's name on).
  const std::string path = library_.library.string();
  std::uint64_t path_bytes = 0;
  std::memcpy(&path_bytes, path.data() + path.find("lb-trip-"), sizeof path_bytes);
  ASSERT_TRUE(memory_holds(process->pid(), path_bytes)) << "the scan cannot read the trip process's memory";
  const std::string argv = proc_text(process->pid(), "cmdline"), environment = proc_text(process->pid(), "environ");
  for (const std::uint64_t key : held) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
    for (const std::string& text : {argv, environment}) {
      EXPECT_FALSE(has(text, hex)) << hex;
      EXPECT_FALSE(has(text, std::to_string(key))) << key;
    }
    EXPECT_FALSE(memory_holds(process->pid(), key)) << "key " << hex << " is in the trip process's memory";
  }
  // Each line of the keys' text that carries keys ("judge K...", "samples K..."); a line with no
  // key is a bare word ("check" in time mode), which a path on the argv may hold (CI's clone is
  // under /check).
  std::istringstream lines(keys_text);
  for (std::string line; std::getline(lines, line);)
    if (line.find(' ') != std::string::npos) EXPECT_FALSE(has(argv, line)) << line << " in " << argv;
  // Its descriptors: the standard three, its socket and the shared memory; nothing else of ours
  // (this process's other descriptors are closed on exec).
  const int spare = open("/dev/null", O_RDONLY);  // not close-on-exec: it must not reach the trip process
  const std::unique_ptr<TripProcess> second = start(kSolution);
  close(spare);
  std::vector<std::string> others;
  for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(second->pid()) + "/fd")) {
    const int fd = std::stoi(entry.path().filename().string());
    const std::string target = fs::read_symlink(entry.path()).string();
    if (fd > 2 && !target.starts_with("socket:") && !target.starts_with("/memfd:lb-trip-data"))
      others.push_back(std::to_string(fd) + " -> " + target);
  }
  EXPECT_TRUE(others.empty()) << others.front() << " (" << others.size() << ")";
}

// What a call of the student's returns in the trip process comes back as the student's message,
// and the trip process serves the next command after it.
TEST_F(TripProcessTest, AFailedCallComesBackAsTheStudentsMessage) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  std::string text = slurp(kSolution);
  const std::string pinned = "return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;";
  const std::size_t alloc = text.find(pinned);
  ASSERT_NE(alloc, std::string::npos);
  text.replace(alloc, pinned.size(), "(void)p; (void)bytes; return nullptr;");
  write(dir_ / "no_memory.cu", text);
  const std::unique_ptr<TripProcess> process = start(dir_ / "no_memory.cu");
  for (int twice = 0; twice < 2; ++twice) {
    try {
      process->open(TripOf::kStudent, 64, "64");
      FAIL() << "opened with no host memory";
    } catch (const TripError& e) {
      EXPECT_TRUE(has(e.what(), "lab_host_alloc(256) returned a null pointer (for a)")) << e.what();
    }
  }
}

// Ours runs in a trip process of ours alone, which loads no library and refuses the student's
// trip; the student's refuses ours: neither ever runs in the other's process (a protocol error: the
// process exits, status 2).
TEST_F(TripProcessTest, OursRunsOnlyInAProcessOfItsOwn) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  TripProcess ours(LB_EXE, 1024);
  ours.wait_loaded();
  EXPECT_TRUE(ours.ours_only());
  EXPECT_FALSE(has(proc_text(ours.pid(), "cmdline"), ".so")) << proc_text(ours.pid(), "cmdline");
  try {
    ours.open(TripOf::kStudent, 64, "64");
    FAIL() << "the student's trip opened in ours";
  } catch (const TripError& e) {
    FAIL() << e.what();
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(has(e.what(), "stopped: it exited with status 2")) << e.what();
  }
  const std::unique_ptr<TripProcess> theirs = start(kSolution);
  EXPECT_FALSE(theirs->ours_only());
  EXPECT_THROW(theirs->open(TripOf::kOurs, 64, "64"), std::runtime_error);
}

// Its environment is PATH, LD_LIBRARY_PATH, the CUDA_ and NV_ variables, and HOME and TMPDIR a
// folder of its own (removed when it has ended): nothing else of the child's.
TEST_F(TripProcessTest, ItsEnvironmentIsMinimalAndItsHomeItsOwn) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  setenv("LB_TEST_NOT_FOR_THE_TRIP", "1", 1);
  const std::unique_ptr<TripProcess> process = start(kSolution);
  unsetenv("LB_TEST_NOT_FOR_THE_TRIP");
  const std::string environ_text = proc_text(process->pid(), "environ");
  std::string home, tmpdir;
  for (std::size_t at = 0; at < environ_text.size();) {
    const std::size_t end = environ_text.find('\0', at);
    const std::string entry = environ_text.substr(at, end - at);
    at = end == std::string::npos ? environ_text.size() : end + 1;
    const std::string name = entry.substr(0, entry.find('='));
    if (name == "HOME") home = entry.substr(5);
    else if (name == "TMPDIR") tmpdir = entry.substr(7);
    else
      EXPECT_TRUE(name == "PATH" || name == "LD_LIBRARY_PATH" || name == "LD_PRELOAD" || name.starts_with("CUDA_") ||
                  name.starts_with("NV_"))
          << entry;
  }
  ASSERT_FALSE(home.empty());
  EXPECT_EQ(home, tmpdir);
  EXPECT_TRUE(fs::is_directory(home)) << home;
  const char* ours = std::getenv("HOME");
  EXPECT_NE(home, ours ? ours : "");
  EXPECT_EQ(process->end(), "");  // it exits when its socket closes
  EXPECT_FALSE(fs::exists(home)) << home;
}

// A student's exit handler that never returns (a static object's destructor: no rule forbids one)
// keeps the trip process alive after its socket closed: end() kills it within seconds.
TEST_F(TripProcessTest, AProcessThatDoesNotExitIsKilledInBoundedTime) {
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  write(dir_ / "stays.cu", slurp(kSolution) + "\nstruct Stay {\n  ~Stay() {\n    volatile int spin = 1;\n"
                                              "    while (spin) {\n    }\n  }\n};\nstatic Stay stay;\n");
  const std::unique_ptr<TripProcess> process = start(dir_ / "stays.cu");
  const pid_t pid = process->pid();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(has(process->end(), "did not exit when its socket was closed, and was killed"));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  EXPECT_NE(kill(pid, 0), 0);  // reaped: gone
  EXPECT_EQ(process->end(), "");  // once
}

// On the GPU: the trip runs on the shared memory itself: a and b written after "ready" reach the
// trip, its c is there when "ran" comes (the end sample passes), and the guard is untouched; the
// solution's pinned memory is the shared regions, registered.
TEST_F(TripProcessTest, ATripsDataGoInAndItsResultComesBack) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const std::unique_ptr<TripProcess> process = start(kSolution);
  for (const std::int64_t n : {std::int64_t{1000}, std::int64_t{17}}) {
    const HostBuffers memory = process->open(TripOf::kStudent, n, std::to_string(n));
    EXPECT_TRUE(memory.a_pinned && memory.b_pinned && memory.c_pinned);
    for (int trip = 0; trip < 3; ++trip) {
      std::vector<float> a(static_cast<std::size_t>(n)), b(a.size());
      for (std::int64_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i * (trip + 1));
        b[i] = 0.5f * static_cast<float>(trip);
        process->c(n)[i] = std::nanf("");
      }
      EndSample sample;
      sample.draw(static_cast<std::uint64_t>(trip), a, b);
      for (float& g : process->c_guard(n)) std::memcpy(&g, &kGuardBits, sizeof kGuardBits);
      bool started = false, handed = false, ended = false;
      process->run(
          TripOf::kStudent, n, sample, [&] { started = true; },
          [&] {
            handed = started;
            std::copy(a.begin(), a.end(), process->a(n).begin());
            std::copy(b.begin(), b.end(), process->b(n).begin());
          },
          [&] { ended = handed; });
      EXPECT_TRUE(ended);
      for (std::int64_t i = 0; i < n; ++i)
        ASSERT_EQ(process->c(n)[i], static_cast<float>(i * (trip + 1)) + 0.5f * static_cast<float>(trip)) << i;
      for (const float guard : process->c_guard(n)) {
        std::uint32_t bits;
        std::memcpy(&bits, &guard, sizeof bits);
        ASSERT_EQ(bits, kGuardBits);
      }
    }
    process->close(TripOf::kStudent);
  }
}

// --- what limits a trip -----------------------------------------------------------------------

TripFacts facts_at(double trip_ms) {
  TripFacts f;
  f.bytes = trip_bytes(*find_workload("vector_add"), {1, std::int64_t{1} << 26, 1});
  f.trip_ms = trip_ms;
  f.link = {.h2d_gbps = 50, .d2h_gbps = 50, .h2d_pageable_gbps = 12, .d2h_pageable_gbps = 14};
  return f;
}

TEST(TransferLimiter, EachLimiterIsNamedWithItsFigures) {
  const TripFacts f = facts_at(1);
  EXPECT_EQ(f.bytes.upload, 536870912.0);
  EXPECT_EQ(f.bytes.download, 268435456.0);
  const double up = 536870912.0 / 50e6, down = 268435456.0 / 50e6;  // 10.74 ms, 5.37 ms
  EXPECT_NEAR(serial_ms(f.bytes, f.link), up + down, 1e-9);
  EXPECT_NEAR(bound_ms(f.bytes, f.link), up, 1e-9);

  TripFacts pageable = facts_at(40);
  pageable.a_pinned = pageable.b_pinned = false;
  EXPECT_TRUE(has(limiter_line(pageable), "pageable copies: a and b are pageable (malloc)")) << limiter_line(pageable);
  EXPECT_TRUE(has(limiter_line(pageable), "12.0 GB/s here against 50.0 GB/s pinned")) << limiter_line(pageable);
  EXPECT_TRUE(has(limiter_line(pageable), "cudaMallocHost")) << limiter_line(pageable);
  pageable.a_pinned = pageable.b_pinned = true;
  pageable.c_pinned = false;
  EXPECT_TRUE(has(limiter_line(pageable), "c is pageable (malloc)")) << limiter_line(pageable);
  EXPECT_TRUE(has(limiter_line(pageable), "14.0 GB/s here")) << limiter_line(pageable);  // the download's

  const std::string serial = limiter_line(facts_at(up + down));
  EXPECT_TRUE(has(serial, "no overlap: your trip takes 16.1 ms")) << serial;
  EXPECT_TRUE(has(serial, "up 10.7 ms, down 5.37 ms")) << serial;
  EXPECT_TRUE(has(limiter_line(facts_at(up + 0.96 * down)), "no overlap")) << "0.95 of the way to serial, and beyond";
  EXPECT_TRUE(has(limiter_line(facts_at(up + 0.94 * down)), "too few chunks")) << "short of 0.95 of the way";
  // Overlapped, if only a little: at least two chunks, whatever 1 / share rounds to.
  EXPECT_TRUE(has(limiter_line(facts_at(up + 0.83 * down)), "behaves like 2 chunks")) << limiter_line(facts_at(up + 0.83 * down));

  // Two chunks: about up + down / 2.
  const std::string two = limiter_line(facts_at(up + down / 2));
  EXPECT_TRUE(has(two, "overlap, but too few chunks")) << two;
  EXPECT_TRUE(has(two, "behaves like 2 chunks")) << two;

  const std::string at_link = limiter_line(facts_at(1.05 * up));
  EXPECT_TRUE(has(at_link, "at the link: your trip takes 11.3 ms, within 5%")) << at_link;
  EXPECT_TRUE(has(limiter_line(facts_at(up + 0.24 * down)), "at the link")) << "a quarter of the way to serial";
  EXPECT_TRUE(has(limiter_line(facts_at(up + 0.26 * down)), "too few chunks")) << "beyond a quarter";

  EXPECT_TRUE(has(limiter_line(facts_at(2 * (up + down))), "slower than the copies alone")) << "beyond 1.5 x serial";
  TripFacts unmeasured = facts_at(10);
  unmeasured.link = {};
  EXPECT_EQ(limiter_line(unmeasured), "");
}

// Both directions at once share the link: the bound is the shorter direction at its duplex rate
// beside the longer one, which then finishes alone. The rates and trips measured on the lent H100
// (lab grade 08 of the solution and two planted files, with the spinning parent clock).
TEST(TransferLimiter, TheBoundCountsBothDirectionsSharingTheLink) {
  TripFacts f = facts_at(1);
  f.link = {.h2d_gbps = 55.0, .d2h_gbps = 55.0, .duplex_h2d_gbps = 42.7, .duplex_d2h_gbps = 51.7};
  const double down_shared = 268435456.0 / 51.7e6;  // 5.19 ms, while 42.7 GB/s go up
  const double rest_up = (536870912.0 - 42.7e6 * down_shared) / 55.0e6;
  EXPECT_NEAR(bound_ms(f.bytes, f.link), down_shared + rest_up, 1e-9);
  EXPECT_NEAR(bound_ms(f.bytes, f.link), 10.92, 0.01);
  f.trip_ms = 11.06;  // the solution, and ours
  EXPECT_TRUE(has(limiter_line(f), "at the link")) << limiter_line(f);
  f.trip_ms = 13.25;  // labs/08-transfer/wrong/too_few_chunks.cu: 2 chunks
  EXPECT_TRUE(has(limiter_line(f), "too few chunks")) << limiter_line(f);
  EXPECT_TRUE(has(limiter_line(f), "behaves like 2 chunks")) << limiter_line(f);
  f.trip_ms = 14.0;  // too_few_chunks.cu in a run where its one window overlapped less (share 0.83)
  EXPECT_TRUE(has(limiter_line(f), "too few chunks")) << limiter_line(f);
  f.trip_ms = 15.23;  // no_overlap.cu
  EXPECT_TRUE(has(limiter_line(f), "no overlap")) << limiter_line(f);
  // Without duplex rates, the longer direction alone.
  f.link.duplex_h2d_gbps = 0;
  EXPECT_NEAR(bound_ms(f.bytes, f.link), 536870912.0 / 55.0e6, 1e-9);
}

TEST(TransferLimiter, TheLinkTravelsInTheEnvironmentLine) {
  const LinkBandwidth link{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(link_from_json(link_json(link)), link);
  EXPECT_EQ(link_from_json(json::parse(R"({"copy_gbps": 3000})")), LinkBandwidth{});
}

// --- why c is wrong ---------------------------------------------------------------------------

TEST(TransferFeedback, AnUnwrittenEndOfCAsksAboutTheLastChunk) {
  const Workload& w = *find_workload("vector_add");
  const HostProblem p = w.make_problem({1, 1000, 1}, 7);
  HostBuffer c(1000);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = p.inputs[0][i] + p.inputs[1][i];
  EXPECT_EQ(explain_trip_result(w, p, c), "");
  for (std::size_t i = 999; i < c.size(); ++i) c[i] = NAN;
  const std::string tail = explain_trip_result(w, p, c);
  EXPECT_TRUE(has(tail, "elements from 999 on were never written")) << tail;
  EXPECT_TRUE(has(tail, "including the last, shorter chunk")) << tail;
  fill_nan(c);
  EXPECT_TRUE(has(explain_trip_result(w, p, c), "none of c was written")) << explain_trip_result(w, p, c);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = p.inputs[0][i] + p.inputs[1][i];
  c[500] = 42;
  EXPECT_TRUE(has(explain_trip_result(w, p, c), "element 500")) << explain_trip_result(w, p, c);
}

// --- each trip's inputs -----------------------------------------------------------------------

const Shape kTripShape{1, std::int64_t{1} << 16, 1};

// Trip `trip`'s a and b and c's start, as the runner writes them into the student's buffers.
struct TripData {
  HostBuffer a, b, c;
  explicit TripData(std::int64_t n) : a(n), b(n), c(n) {}
};
// As a trip's: c poisoned before the trip's "run", a and b handed over after its start mark.
void prepare(TripInputs& inputs, std::int64_t trip, TripData& d) {
  inputs.draw(trip, d.c);
  inputs.hand_over(d.a, d.b);
}

// Of the elements where a shift of `shift` floats lines them up (new[i] against old[i + shift]),
// the fraction that are equal.
double equal_fraction(const HostBuffer& now, const HostBuffer& before, std::int64_t shift) {
  const auto n = static_cast<std::int64_t>(now.size());
  std::int64_t equal = 0, compared = 0;
  for (std::int64_t i = std::max<std::int64_t>(0, -shift); i < n && i + shift < n; ++i, ++compared)
    equal += now[i] == before[i + shift];
  return compared ? static_cast<double>(equal) / compared : 0;
}

TEST(TripInputsTest, EachTripIsTheWorkloadsOwnProblemAtItsTripSeedInTheSameBuffers) {
  const Workload& w = *find_workload("vector_add");
  TripInputs inputs(w, kTripShape, 42);
  TripData d(kTripShape.n);
  const float *a = d.a.data(), *b = d.b.data(), *c = d.c.data();
  for (const std::int64_t trip : {0, 1, 7}) {
    EXPECT_GE(inputs.draw(trip, d.c), 0.0);
    EXPECT_TRUE(std::all_of(d.c.begin(), d.c.end(), [](float x) { return std::isnan(x); })) << "trip " << trip;
    EXPECT_GE(inputs.hand_over(d.a, d.b), 0.0);
    const std::uint64_t seed = TripInputs::trip_seed(case_seed(42, w, kTripShape), trip);
    const HostProblem expected = w.make_problem(kTripShape, seed);
    EXPECT_EQ(inputs.problem().seed, seed);
    EXPECT_TRUE(std::equal(d.a.begin(), d.a.end(), expected.inputs[0].begin())) << "trip " << trip;
    EXPECT_TRUE(std::equal(d.b.begin(), d.b.end(), expected.inputs[1].begin())) << "trip " << trip;
    // What the trip is verified against: the runner's own copy, equal to what the student got.
    EXPECT_TRUE(std::equal(d.a.begin(), d.a.end(), inputs.problem().inputs[0].begin())) << "trip " << trip;
    EXPECT_TRUE(std::equal(d.b.begin(), d.b.end(), inputs.problem().inputs[1].begin())) << "trip " << trip;
    EXPECT_EQ(inputs.problem().shape, kTripShape);
  }
  EXPECT_EQ(d.a.data(), a);  // nothing about the pointers says that anything changed
  EXPECT_EQ(d.b.data(), b);
  EXPECT_EQ(d.c.data(), c);
  HostBuffer short_a(10);
  EXPECT_THROW(inputs.hand_over(short_a, d.b), std::logic_error);
  EXPECT_THROW(inputs.draw(0, short_a), std::logic_error);
}

// Between draw and hand_over, a and b hold decoys at the end sample's positions, drawn as inputs
// are (nothing tells them apart) and the inputs elsewhere; the hand-over writes the decoys with
// the bulk copy, then the inputs over them: a trip that pulled a and b while they arrived has
// decoys where the end sample reads.
TEST(TripInputsTest, TheHandOverWritesDecoysWhereTheEndSampleReadsThenTheInputs) {
  const Workload& w = *find_workload("vector_add");
  TripInputs inputs(w, kTripShape, 7);
  TripData d(kTripShape.n);
  inputs.draw(3, d.c);
  const HostProblem expected = w.make_problem(kTripShape, TripInputs::trip_seed(case_seed(7, w, kTripShape), 3));
  const std::vector<std::int64_t>& at = inputs.end_sample().positions();
  ASSERT_GE(at.size(), 3900u);  // 4096 draws of 2^16, each kept once: about 128 repeats dropped
  std::size_t decoys = 0, elsewhere = 0;
  for (std::size_t i = 0; i < d.a.size(); ++i) {
    const bool sampled = std::binary_search(at.begin(), at.end(), static_cast<std::int64_t>(i));
    const float now = inputs.problem().inputs[0][i];
    if (sampled) {
      decoys += now != expected.inputs[0][i];
      EXPECT_GE(std::fabs(now), 0.25f) << i;  // a value as the inputs are drawn
      EXPECT_LT(std::fabs(now), 1.0f) << i;
    } else {
      elsewhere += now != expected.inputs[0][i];
    }
  }
  EXPECT_GE(decoys, at.size() - 4);
  EXPECT_EQ(elsewhere, 0u);
  inputs.hand_over(d.a, d.b);
  EXPECT_TRUE(std::equal(d.a.begin(), d.a.end(), expected.inputs[0].begin()));
  EXPECT_TRUE(std::equal(d.b.begin(), d.b.end(), expected.inputs[1].begin()));
  EXPECT_TRUE(std::equal(d.a.begin(), d.a.end(), inputs.problem().inputs[0].begin()));
  EXPECT_THROW(inputs.hand_over(d.a, d.b), std::logic_error);  // once per draw
}

TEST(TripInputsTest, DrawsAreDeterministicPerSeedAndTrip) {
  const Workload& w = *find_workload("vector_add");
  TripInputs first(w, kTripShape, 42), again(w, kTripShape, 42), other_seed(w, kTripShape, 43);
  TripData x(kTripShape.n), y(kTripShape.n), z(kTripShape.n);
  prepare(first, 5, x);
  prepare(again, 2, y);  // an earlier trip in between changes nothing
  prepare(again, 5, y);
  prepare(other_seed, 5, z);
  EXPECT_EQ(x.a, y.a);
  EXPECT_EQ(x.b, y.b);
  EXPECT_LT(equal_fraction(x.a, z.a, 0), 1e-3);
  EXPECT_LT(equal_fraction(x.b, z.b, 0), 1e-3);
  // Another size of the same grade draws other values too.
  TripInputs bigger(w, {1, kTripShape.n + 64, 1}, 42);
  TripData big(kTripShape.n + 64);
  prepare(bigger, 5, big);
  EXPECT_LT(equal_fraction(x.a, big.a, 0), 1e-3);
}

// The class of cheat lab 8's grade closes: a trip that updates its last answer instead of
// uploading the inputs, because the next trip's inputs are the last ones moved (windows of a
// pool). Successive trips' a and b share nothing at any shift, in either direction, either
// input against either (uploads_only_changes.cu, graded on the GPU, looks for exactly this).
TEST(TripInputsTest, SuccessiveTripsShareNothingAtAnyShift) {
  const Workload& w = *find_workload("vector_add");
  TripInputs inputs(w, kTripShape, 2026);
  TripData d(kTripShape.n);
  prepare(inputs, 3, d);
  const HostBuffer a3 = d.a, b3 = d.b;
  prepare(inputs, 4, d);
  double worst = 0;
  for (std::int64_t shift = -4096; shift <= 4096; shift += 64)
    for (const HostBuffer* now : {&d.a, &d.b})
      for (const HostBuffer* before : {&a3, &b3}) worst = std::max(worst, equal_fraction(*now, *before, shift));
  EXPECT_LT(worst, 1e-3);
  // The measure sees a window when there is one: the last a moved by 64 floats matches in full.
  HostBuffer window(a3.begin() + 64, a3.end());
  window.insert(window.end(), a3.begin(), a3.begin() + 64);
  EXPECT_EQ(equal_fraction(window, a3, 64), 1.0);
}

// --- the end of a trip: a keyed sample of c (trip_sample.h) ---------------------------------

TEST(EndSampleTest, PositionsAreKeyedSortedAndInRangeOrEveryElementOfASmallC) {
  const std::int64_t n = std::int64_t{1} << 26;
  const std::vector<std::int64_t> p = end_sample_positions(7, n);
  ASSERT_LE(p.size(), EndSample::kPositions);
  ASSERT_GE(p.size(), EndSample::kPositions - 8);
  EXPECT_TRUE(std::adjacent_find(p.begin(), p.end(), std::greater_equal<>()) == p.end());  // sorted, each once
  EXPECT_GE(p.front(), 0);
  EXPECT_LT(p.back(), n);
  EXPECT_EQ(end_sample_positions(7, n), p);  // the child's own, drawn again: the same
  // Another trip's seed: other positions (two draws of 4096 of 2^26 share a handful at most).
  const std::vector<std::int64_t> q = end_sample_positions(8, n);
  std::vector<std::int64_t> common;
  std::set_intersection(p.begin(), p.end(), q.begin(), q.end(), std::back_inserter(common));
  EXPECT_LT(common.size(), 8u);
  // Spread over all of c: each eighth holds some (a sample of the front alone would miss a late tail).
  for (std::int64_t part = 0; part < 8; ++part)
    EXPECT_TRUE(std::any_of(p.begin(), p.end(), [&](std::int64_t i) { return i / (n / 8) == part; })) << part;
  // At most 4096 elements: every one, in order.
  const std::vector<std::int64_t> all = end_sample_positions(7, 1000);
  ASSERT_EQ(all.size(), 1000u);
  for (std::int64_t i = 0; i < 1000; ++i) EXPECT_EQ(all[static_cast<std::size_t>(i)], i);
  EXPECT_THROW(end_sample_positions(7, 0), std::logic_error);
}

struct SampledTrip {
  HostBuffer a, b, c;
  EndSample sample;
  SampledTrip(std::int64_t n, std::uint64_t seed)
      : a(random_vector(n, seed, 0)), b(random_vector(n, seed, 1)), c(static_cast<std::size_t>(n)) {
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = a[i] + b[i];
    sample.draw(seed, a, b);
  }
};

// A finished c passes; one sampled element still the poison, or wrong, fails the trip with the
// end-mark line naming it; an element the sample does not read is left to the full verification.
TEST(EndSampleTest, APoisonedOrWrongSampledElementFailsTheTripNamingIt) {
  SampledTrip t(std::int64_t{1} << 20, 99);
  EXPECT_EQ(t.sample.mismatch(t.c), "");
  const std::int64_t i = t.sample.positions()[1234];
  const float kept = t.c[static_cast<std::size_t>(i)];
  t.c[static_cast<std::size_t>(i)] = std::nanf("");
  const std::string poisoned = t.sample.mismatch(t.c);
  EXPECT_TRUE(has(poisoned, "the trip said it had ended before c was written (element " + std::to_string(i) +
                                " of 1048576 sampled at the end mark: still the poison (NaN)"))
      << poisoned;
  t.c[static_cast<std::size_t>(i)] = kept + 1.0f;
  const std::string wrong = t.sample.mismatch(t.c);
  EXPECT_TRUE(has(wrong, "(element " + std::to_string(i) + " of 1048576 sampled at the end mark: ")) << wrong;
  EXPECT_TRUE(has(wrong, "where a + b is")) << wrong;
  // Within vector_add's tolerance (one rounding): passes, as the full verification would.
  t.c[static_cast<std::size_t>(i)] = std::nextafter(kept, 1.0f);
  EXPECT_EQ(t.sample.mismatch(t.c), "");
  t.c[static_cast<std::size_t>(i)] = kept;
  // An element outside the sample: not the sample's to find.
  std::int64_t outside = 0;
  while (std::binary_search(t.sample.positions().begin(), t.sample.positions().end(), outside)) ++outside;
  t.c[static_cast<std::size_t>(outside)] = std::nanf("");
  EXPECT_EQ(t.sample.mismatch(t.c), "");
  EXPECT_THROW(t.sample.mismatch(std::span<const float>(t.c.data(), 10)), std::logic_error);
}

// A "ran" sent before c was written: c all poison, or the first half written and the rest not
// (a trip that ends when it has downloaded half), fails; so does a single poisoned element at n = 1.
TEST(EndSampleTest, AnUnfinishedCFailsWhateverPartIsMissing) {
  SampledTrip t(std::int64_t{1} << 22, 5);
  HostBuffer half = t.c;
  std::fill(half.begin() + half.size() / 2, half.end(), std::nanf(""));
  EXPECT_TRUE(has(t.sample.mismatch(half), "the trip said it had ended before c was written")) << t.sample.mismatch(half);
  const HostBuffer none = poisoned(std::int64_t{1} << 22);
  EXPECT_TRUE(has(t.sample.mismatch(none), "still the poison")) << t.sample.mismatch(none);
  SampledTrip one(1, 3);
  EXPECT_EQ(one.sample.mismatch(one.c), "");
  one.c[0] = std::nanf("");
  EXPECT_TRUE(has(one.sample.mismatch(one.c), "(element 0 of 1 sampled")) << one.sample.mismatch(one.c);
}

// What tells an early "ran" from a wrong result: c finished soon after it (another thread writes
// it 50 ms later, as the trip's own download would) is met; a c that stays wrong is not.
TEST(EndSampleTest, ACFinishedAfterTheSampleIsToldFromOneThatStaysWrong) {
  SampledTrip t(std::int64_t{1} << 20, 17);
  const HostBuffer right = t.c;
  std::fill(t.c.begin(), t.c.end(), std::nanf(""));
  ASSERT_NE(t.sample.mismatch(t.c), "");
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::copy(right.begin(), right.end(), t.c.begin());
  });
  EXPECT_TRUE(t.sample.met_within(t.c, std::chrono::milliseconds(5000)));
  late.join();
  t.c[static_cast<std::size_t>(t.sample.positions()[7])] += 1.0f;  // wrong, and stays so
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(t.sample.met_within(t.c, std::chrono::milliseconds(100)));
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.1);
}

// The shared memory's regions: each starts on a page of its own (what cudaHostRegister locks is
// whole pages: a region locked for one buffer never takes another's), c's holds its guard zone.
TEST(TripLayoutTest, EachRegionStartsOnAPageAndCHoldsItsGuard) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{16777219}, std::int64_t{1} << 26}) {
    const TripLayout l = trip_layout(n);
    EXPECT_EQ(l.a, 0u);
    EXPECT_EQ(l.b % page, 0u) << n;
    EXPECT_EQ(l.c % page, 0u) << n;
    EXPECT_EQ(l.bytes % page, 0u) << n;
    EXPECT_GE(l.b - l.a, static_cast<std::size_t>(n) * sizeof(float)) << n;
    EXPECT_GE(l.c - l.b, static_cast<std::size_t>(n) * sizeof(float)) << n;
    EXPECT_GE(l.bytes - l.c, static_cast<std::size_t>(n + kGuardFloats) * sizeof(float)) << n;
  }
  EXPECT_THROW(trip_layout(0), std::logic_error);
}

// --- the host trip's own lines (trip_event.h) ---------------------------------------------------

// Its lines round-trip through the child's protocol as a runner's lines, in the documented format.
TEST(TripEventTest, MarksAndHostBuffersRoundTripAsTheRunnersLines) {
  using nlohmann::json;
  const TripMark mark{"2^26", TripOf::kOurs, 3, true};
  const HostBuffers memory{"2^26", true, false, true};
  EXPECT_EQ(to_json(runner_event(mark)),
            json::parse(R"({"event": "trip", "mark": "end", "benchmark": "2^26", "who": "ours", "sample": 3})"));
  EXPECT_EQ(to_json(runner_event(memory)),
            json::parse(R"({"event": "host_buffers", "benchmark": "2^26", "a": "pinned", "b": "pageable", "c": "pinned"})"));
  for (const TripEvent& e : {TripEvent(mark), TripEvent(TripMark{"67108864", TripOf::kStudent, 0, false}),
                             TripEvent(memory)}) {
    const RunnerEvent line = std::visit([](const auto& x) { return runner_event(x); }, e);
    const ChildEvent read = parse_child_event(to_json(line).dump());
    ASSERT_TRUE(std::holds_alternative<RunnerEvent>(read));
    EXPECT_EQ(trip_event(std::get<RunnerEvent>(read)), e);
  }
}

TEST(TripEventTest, ABadLineIsAProtocolErrorNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"event": "trip", "mark": "start", "benchmark": "2^26", "who": "student"})", "'sample' is missing"},
      {R"({"event": "trip", "mark": "begin", "benchmark": "2^26", "who": "student", "sample": 0})",
       "'mark' is neither end nor start"},
      {R"({"event": "trip", "mark": "end", "benchmark": "2^26", "who": "teacher", "sample": 0})",
       "'who' is neither ours nor student"},
      {R"({"event": "trip", "mark": "end", "benchmark": "2^26", "who": "ours", "sample": -1})", "'sample' is not a count"},
      {R"({"event": "trip", "mark": "end", "benchmark": 67108864, "who": "ours", "sample": 1})", "'benchmark' is not a string"},
      {R"({"event": "host_buffers", "benchmark": "2^26", "a": "pinned", "b": "pinned"})", "'c' is missing"},
      {R"({"event": "host_buffers", "benchmark": "2^26", "a": "pinned", "b": true, "c": "pinned"})", "'b' is not a string"},
      {R"({"event": "host_buffers", "benchmark": "2^26", "a": "mapped", "b": "pinned", "c": "pinned"})",
       "'a' is neither pinned nor pageable"},
      {R"({"event": "finished"})", "an unknown event 'finished'"},
  };
  for (const auto& [line, expected] : cases) {
    std::string error;
    TripNotes notes;
    try {
      notes.read(parse_child_event(line), 1.0);  // as the parent reads the host trip's child
    } catch (const ChildProtocolError& e) {
      error = e.what();
    }
    EXPECT_TRUE(has(error, expected)) << line << "\n  gave: " << error;
  }
}

// --- the parent's clock -----------------------------------------------------------------------

TEST(TripClockTest, MarksInOrderGiveTheTripsTimes) {
  TripClock clock;
  clock.mark({"67108864", TripOf::kStudent, 0, false}, 1.000);
  clock.mark({"67108864", TripOf::kOurs, 0, false}, 1.001);  // another series, apart
  clock.mark({"67108864", TripOf::kStudent, 0, true}, 1.010);
  clock.mark({"67108864", TripOf::kStudent, 1, false}, 2.000);
  clock.mark({"67108864", TripOf::kStudent, 1, true}, 2.030);
  const std::vector<double> ms = clock.trips_ms("67108864", TripOf::kStudent);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_NEAR(ms[0], 10, 1e-9);
  EXPECT_NEAR(ms[1], 30, 1e-9);
  EXPECT_TRUE(clock.trips_ms("67108864", TripOf::kOurs).empty());  // started, never ended
  // The rate is of the trip's own time: the hand-over of a and b left out.
  EXPECT_NEAR(figures_of_trips({10, 20, 30}, 536870912.0, "noise target", 12).gbps, 536870912.0 / 8e6, 1e-9);
  EXPECT_NEAR(figures_of_trips({10, 20, 30}, 536870912.0, "noise target", 25).gbps, 536870912.0 / 20e6, 1e-9);
  const Figures f = figures_of_trips({10, 20, 30}, 536870912.0, "noise target");
  EXPECT_EQ(f.median_ms, 20);
  EXPECT_EQ(f.samples, 3u);
  EXPECT_NEAR(f.gbps, 536870912.0 / 20e6, 1e-9);
  EXPECT_EQ(f.stop, "noise target");
}

TEST(TripClockTest, MarksOutOfOrderAreProtocolErrors) {
  const auto error_of = [](const std::vector<TripMark>& marks) -> std::string {
    TripClock clock;
    try {
      for (const TripMark& m : marks) clock.mark(m, 1.0);
    } catch (const ChildProtocolError& e) {
      return e.what();
    }
    return "";
  };
  const std::string size = "67108864";
  EXPECT_TRUE(has(error_of({{size, TripOf::kStudent, 0, true}}), "without its start mark"));
  EXPECT_TRUE(has(error_of({{size, TripOf::kStudent, 0, false}, {size, TripOf::kStudent, 0, false}}), "under way"));
  EXPECT_TRUE(has(error_of({{size, TripOf::kStudent, 1, false}}), "where sample 0 was next"));
  EXPECT_TRUE(has(error_of({{size, TripOf::kStudent, 0, false}, {size, TripOf::kStudent, 1, true}}), "without its start"));
  EXPECT_TRUE(has(error_of({{size, TripOf::kStudent, 0, false}, {size, TripOf::kOurs, 0, true}}), "without its start"));
}

// A start and its end read at once (the parent busy elsewhere while the trip ran) leave that
// sample untimed, counted, and the next sample follows it.
TEST(TripClockTest, MarksReadTogetherLeaveTheSampleUntimed) {
  const std::string size = "67108864";
  TripClock clock;
  clock.mark({size, TripOf::kStudent, 0, false}, 1.0);
  clock.mark({size, TripOf::kStudent, 0, true}, 1.0);
  clock.mark({size, TripOf::kStudent, 1, false}, 2.0);
  clock.mark({size, TripOf::kStudent, 1, true}, 2.010);
  EXPECT_EQ(clock.untimed(size, TripOf::kStudent), 1u);
  ASSERT_EQ(clock.trips_ms(size, TripOf::kStudent).size(), 1u);
  EXPECT_NEAR(clock.trips_ms(size, TripOf::kStudent)[0], 10.0, 1e-6);
  EXPECT_EQ(clock.untimed(size, TripOf::kOurs), 0u);
}

// On the events channel (fd 3) only: what the child prints on stdout is not an event, and has no time.
TEST(TripClockTest, TheWatchdogRecordsWhenEachLineArrived) {
  const ChildOutcome o = run_with_time_limit(
      {"sh", "-c", "echo a >&3; echo printed; sleep 0.2; echo b >&3; sleep 0.3; printf 'c\\nd\\n' >&3"}, 10,
      ArrivalClock::kSleep, ChildChannel::kEvents);
  ASSERT_EQ(o.events, "a\nb\nc\nd\n");
  ASSERT_EQ(o.out, "printed\n");
  ASSERT_EQ(o.event_line_s.size(), 4u);
  EXPECT_NEAR(o.event_line_s[1] - o.event_line_s[0], 0.2, 0.1);
  EXPECT_NEAR(o.event_line_s[2] - o.event_line_s[1], 0.3, 0.1);
  EXPECT_LE(o.event_line_s[3] - o.event_line_s[2], 0.05);  // written together
}

// A stand-in timing child for lab 8 (LAYERBENCH_LAB_RUNNER-style): marks with sleeps between them,
// which the parent times; the benchmark line claims times of its own, which must not count.
class TransferParent : public LabCliTest {
 protected:
  // `student_s` and `ours_s`: how long each stand-in trip sleeps; `h2d`: the link's figure.
  fs::path child(double student_s, double ours_s, double h2d, const std::string& a_memory = "pinned",
                 const std::string& tail = "") const {
    std::string sizes;
    for (const char* size : {"1", "1000", "65539", "1048577", "16777219"})
      sizes += std::string("{\"size\": \"") + size + "\", \"passed\": true}\n";
    // Samples `first` to `last` of `who`'s.
    const auto trips = [](const char* who, double s, int first = 0, int last = 9) {
      return "for i in $(seq " + std::to_string(first) + " " + std::to_string(last) + "); do\n" +
             "  echo '{\"event\": \"trip\", \"mark\": \"start\", \"benchmark\": \"67108864\", \"who\": \"" + who +
             "\", \"sample\": '$i'}'\n  sleep " + std::to_string(s) + "\n" +
             "  echo '{\"event\": \"trip\", \"mark\": \"end\", \"benchmark\": \"67108864\", \"who\": \"" + who +
             "\", \"sample\": '$i'}'\ndone\n";
    };
    const std::string timed =
        "echo '{\"event\": \"environment\", \"gpu\": \"Test GPU\", \"ceilings\": {\"h2d_gbps\": " + std::to_string(h2d) +
        ", \"d2h_gbps\": 50, \"h2d_pageable_gbps\": 12, \"d2h_pageable_gbps\": 12}, \"peaks\": null}'\n" +
        "echo '{\"event\": \"host_buffers\", \"benchmark\": \"67108864\", \"a\": \"" + a_memory +
        "\", \"b\": \"pinned\", \"c\": \"pinned\"}'\n" +
        // As the child times them: ours before the student's, the student's, ours after (its samples
        // numbered on).
        trips("ours", ours_s, 0, 4) + trips("student", student_s) + trips("ours", ours_s, 5, 9) +
        // The child's own figures: a lie (0.001 ms) the parent's clock replaces.
        "echo '{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.001, \"samples\": 10}, "
        "\"runtime\": {\"median_ms\": 0.001, \"samples\": 10}, \"input_reset_ms\": 61.5, "
        "\"sample_verify_ms\": 48.25, \"handover_ms\": 30.125}'\n" + tail;
    const fs::path script = dir_ / "child.sh";
    write(script, "#!/bin/sh\nexec 1>&3\ncase \"$*\" in\n  *'--mode time'*)\n" + timed + ";;\n  *) cat <<'EOF'\n" + sizes +
                      "EOF\n;;\nesac\n");
    fs::permissions(script, fs::perms::owner_all);
    return script;
  }
  json grade(const fs::path& runner, std::string* out_text = nullptr) const {
    GradeOptions options;
    options.check = {{runner.string()}, 1, false, false};
    options.json_path = (dir_ / "g.json").string();
    options.accept_weak_isolation = true;  // none chosen: the stand-in child runs nothing of a student's
    const fs::path out_file = dir_ / "grade.txt";
    std::FILE* out = std::fopen(out_file.c_str(), "w");
    grade_submissions(find_lab(kLabs, "8"), {kSolution}, options, out);
    std::fclose(out);
    if (out_text) *out_text = slurp(out_file);
    return json::parse(slurp(dir_ / "g.json"));
  }
};

TEST_F(TransferParent, TheGradeTimesTripsByTheParentsClockNotTheChilds) {
  std::string out;
  const json g = grade(child(0.06, 0.04, 50), &out)["submissions"][0];
  const json& b = g["performance"]["benchmarks"][0];
  EXPECT_EQ(g["outcome"], "graded") << out;
  // 60 ms and 40 ms sleeps, timed by the parent (a shell's sleep overshoots by a little).
  EXPECT_NEAR(b["student"]["median_ms"].get<double>(), 60, 15) << b.dump(2);
  EXPECT_NEAR(b["runtime"]["median_ms"].get<double>(), 40, 15) << b.dump(2);
  EXPECT_EQ(b["student"]["samples"], 10);
  EXPECT_NEAR(g["performance"]["speed_vs_runtime"].get<double>(), 40.0 / 60.0, 0.15) << out;
  // The rate, which the link bound is about, is of the trip's own time: the hand-over left out.
  EXPECT_NEAR(b["student"]["gbps"].get<double>(),
              536870912.0 / ((b["student"]["median_ms"].get<double>() - 30.125) * 1e6), 1e-6);
  EXPECT_NEAR(b["limit"]["limit"].get<double>(), 55.0, 1e-9) << b.dump(2);  // 50 GB/s x 1.1
  const json ceiling = json::parse(slurp(dir_ / "g.json"))["ceiling"];
  EXPECT_EQ(ceiling["what"], "host-to-device bandwidth");
  EXPECT_EQ(ceiling["value"], 50.0);
  EXPECT_TRUE(has(out, "your trip runs at")) << out;
  // The hand-over of a and b, inside both trips' times: in the JSON and on the console.
  EXPECT_EQ(b["handover_ms"], 30.125) << b.dump(2);
  EXPECT_TRUE(has(out, "(fresh inputs: 61.500 ms, verification: 48.25 ms per sample, outside the timed region; the "
                       "hand-over of a and b: 30.12 ms, inside both trips' times)"))
      << out;
  // The limiter reads the trip's own time, the hand-over left out: 60 ms less 30 ms.
  EXPECT_TRUE(has(g["feedback"].dump(), "your trip takes 3")) << g["feedback"].dump(2);
  // 60 ms is beyond 1.5 x the copies' 16.1 ms at 50 GB/s.
  EXPECT_TRUE(has(g["feedback"].dump(), "slower than the copies alone")) << g["feedback"].dump(2);
}

TEST_F(TransferParent, PageableBuffersAreNamedAsTheLimiter) {
  const json g = grade(child(0.06, 0.04, 50, "pageable"))["submissions"][0];
  EXPECT_TRUE(has(g["feedback"].dump(), "pageable copies: a is pageable")) << g["feedback"].dump(2);
}

TEST_F(TransferParent, ATripFasterThanTheLinkIsRefused) {
  // 536870912 bytes uploaded in about 60 ms: about 9 GB/s, against a link said to be 5 GB/s.
  std::string out;
  const json g = grade(child(0.06, 0.04, 5), &out)["submissions"][0];
  EXPECT_EQ(g["outcome"], "refused") << out;
  EXPECT_EQ(g["performance"]["points"], 0);
  EXPECT_TRUE(has(g["performance"]["refused"].get<std::string>(), "the host-to-device link measured in this run"))
      << g.dump(2);
}

TEST_F(TransferParent, MarksThatDoNotMatchTheBenchmarkLineEarnNoPerformancePoints) {
  // An eleventh student trip started and never ended, after the line that counts ten.
  std::string out;
  const json g = grade(child(0.01, 0.01, 50, "pinned",
                             "echo '{\"event\": \"trip\", \"mark\": \"end\", \"benchmark\": \"67108864\", \"who\": "
                             "\"student\", \"sample\": 3}'\n"),
                       &out)["submissions"][0];
  EXPECT_EQ(g["performance"]["points"], 0) << out;
  EXPECT_TRUE(has(out, "a trip end mark (the student's trip at 67108864, sample 3) without its start mark")) << out;
}

// --- the spec and the command line ------------------------------------------------------------

TEST(TransferSpec, Lab8IsGradedEndToEndAndHasNoLaunch) {
  const LabSpec spec = find_lab(kLabs, "08");
  EXPECT_EQ(spec.runner->name(), "host-trip");
  EXPECT_FALSE(spec.runner->times_one_kernel());
  EXPECT_FALSE(spec.runner->takes_launch());
  EXPECT_TRUE(find_lab(kLabs, "1").runner->times_one_kernel());
  EXPECT_EQ(spec.workload->name(), "vector_add");
  EXPECT_EQ(spec.check_size_texts, (std::vector<std::string>{"1", "1000", "65539", "1048577", "16777219"}));
  EXPECT_EQ(spec.benchmark_sizes.front().n, std::int64_t{1} << 26);
  EXPECT_EQ(spec.check_points + spec.performance_points, 100);
}

class TransferCli : public LabCliTest {
 protected:
  // Lab 8's lab.json with `text` replaced by `by`, in dir_/labs.
  fs::path spec_with(const std::string& text, const std::string& by) const {
    const fs::path labs = dir_ / "labs";
    fs::create_directories(labs / "08-transfer");
    std::string json = slurp(kLab / "lab.json");
    json.replace(json.find(text), text.size(), by);
    write(labs / "08-transfer" / "lab.json", json);
    write(labs / "08-transfer" / "transfer.cu", "");
    return labs;
  }
};

TEST_F(TransferCli, ASpecWithALaunchOrOtherArgumentsIsRefused) {
  const Outcome launch = run("lab --labs " + spec_with("\"check_sizes\"", "\"launch\": {\"block\": [256], \"grid\": "
                                                                          "\"cover_n\"}, \"check_sizes\"").string() +
                             " list");
  // `lab list` names each lab it leaves out, with why, and exits 1 when it could list none (docs/labs.md).
  EXPECT_EQ(launch.code, 1) << launch.out << launch.err;
  EXPECT_TRUE(has(launch.out, "field 'launch': the host-trip runner's student launches their own kernels")) << launch.out;
  const Outcome args = run("lab --labs " + spec_with("[\"a\", \"b\", \"c\", \"n\"]", "[\"c\", \"a\", \"b\", \"n\"]").string() +
                           " list");
  EXPECT_EQ(args.code, 1) << args.out << args.err;
  EXPECT_TRUE(has(args.out, "field 'arguments': the host-trip runner calls its trip with two inputs")) << args.out;
}

TEST_F(TransferCli, ListShowsItAndStartCopiesTheSkeletonAndReadme) {
  const Outcome list = run("lab list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_TRUE(has(list.out, "08-transfer")) << list.out;
  const Outcome start = run("lab start 08");
  EXPECT_EQ(start.code, 0) << start.out << start.err;
  for (const char* name : {"README.md", "lab.json", "transfer.cu"}) EXPECT_TRUE(fs::exists(dir_ / "08-transfer" / name)) << name;
  EXPECT_EQ(slurp(dir_ / "08-transfer" / "transfer.cu"), slurp(kLab / "transfer.cu"));
  for (const char* folder : {"solution", "wrong", "expected"}) EXPECT_FALSE(fs::exists(dir_ / "08-transfer" / folder)) << folder;
}

// The rules run in the parent: a breaker fails `lab check` at once, without a GPU or nvcc.
TEST_F(TransferCli, RuleBreakersFailTheCheckWithoutAGpu) {
  for (const auto& [name, expected] : std::vector<std::pair<std::string, std::string>>{
           {"includes_thread.cu", "includes_thread.cu:4: #include <thread>"},
           {"inline_asm.cu", "inline_asm.cu:12: asm: inline assembly is not allowed"},
           {"constructor.cu", "constructor.cu:6: __attribute__: attributes are not allowed"}}) {
    const Outcome o = run("lab check 08 " + (kPlanted / name).string(), "LAYERBENCH_LAB_RUNNER=false");
    EXPECT_EQ(o.code, 1) << name << "\n" << o.out << o.err;
    EXPECT_TRUE(has(o.out, expected)) << name << "\n" << o.out;
    EXPECT_TRUE(has(o.out, "FAIL: " + name + " breaks the lab's rules or does not build")) << o.out;
  }
}

TEST_F(TransferCli, ProfileSaysTheLabIsGradedEndToEndAndToUseNsys) {
  const Outcome o = run("lab profile 08 " + kSolution.string());
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_TRUE(has(o.err, "08-transfer is graded end to end")) << o.err;
  EXPECT_TRUE(has(o.err, "nsys")) << o.err;
  EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << "one line: " << o.err;
}

// --- on a GPU ---------------------------------------------------------------------------------

TEST_F(TransferCli, TheSolutionGradesFullMarksOnTheGpu) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  const Outcome o = run("lab grade 08 " + kSolution.string() + " --json grade.json");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  const json doc = json::parse(slurp(dir_ / "grade.json"));
  const json& g = doc["submissions"][0];
  EXPECT_EQ(g["outcome"], "graded") << g.dump(2);
  EXPECT_EQ(g["points"], 100) << g.dump(2);
  EXPECT_GT(doc["ceiling"]["value"].get<double>(), 0) << doc.dump(2);
  EXPECT_TRUE(has(g["feedback"].dump(), "at the link")) << g["feedback"].dump(2);
  std::printf("%s\n", o.out.c_str());
}

// On the GPU: a file whose lab_setup tries to stop the grader (kill(getppid(), SIGSTOP), kill(0,
// SIGSTOP): it can stop only itself, and fails at once) or forks a daemon that rewrites the grade's JSON later is graded in bounded time (the grade's
// check and timing limits plus 30 s); once `lab grade` has exited, and 3 s after, no process of its
// trip processes is left (their command line names the file), and the JSON's points are the GRADE
// line's.
TEST_F(TransferCli, StudentCodeCanNeitherStopTheGradeNorOutliveIt) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = parse_lab_spec(kLab / "lab.json");
  const double bound_s = spec.time_limit_s + spec.time_limit_s + 20.0 +
                         kTimingSecondsPerBenchmarkSize * static_cast<double>(spec.benchmark_sizes.size()) + 30.0;
  for (const char* name : {"stops_grader.cu", "leaves_daemon.cu"}) {
    // A path of this test's own, so that the scan below finds this grade's processes alone.
    const fs::path file = dir_ / name;
    write(file, slurp(kPlanted / name));
    const auto t0 = std::chrono::steady_clock::now();
    const Outcome o = run_command("timeout -s KILL " + std::to_string(static_cast<int>(bound_s) + 60) + " " + LB_EXE +
                                  " lab grade 08 " + file.string() + " --json " + name + ".json");
    const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(took_s, bound_s) << name << "\n" << o.out << o.err;
    std::this_thread::sleep_for(std::chrono::seconds(3));  // what a daemon would have done by now
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string pid = entry.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "cmdline", std::ios::binary);
      std::stringstream words;
      words << in.rdbuf();
      if (has(words.str(), file.string()) && has(words.str(), "run-helper")) left.push_back(pid);
    }
    EXPECT_TRUE(left.empty()) << name << ": process " << (left.empty() ? "" : left.front()) << " outlived the grade";
    for (const std::string& pid : left) kill(std::stoi(pid), SIGKILL);
    const std::size_t line = o.out.find("GRADE " + file.string() + ": ");
    ASSERT_NE(line, std::string::npos) << name << "\n" << o.out << o.err;
    const double points = std::stod(o.out.substr(line + 8 + file.string().size()));
    const json doc = json::parse(slurp(dir_ / (std::string(name) + ".json")));
    EXPECT_EQ(doc["submissions"][0]["points"].get<double>(), points) << name << "\n" << o.out << doc.dump(2);
    // stops_grader.cu reaches only its own trip process (its own group, its own uid), which stops:
    // the child sees it stopped and fails that trip at once. leaves_daemon.cu's fork is refused.
    const std::string outcome = std::string(name) == "stops_grader.cu" ? "check failed" : "graded";
    EXPECT_EQ(doc["submissions"][0]["outcome"], outcome) << name << "\n" << o.out << doc.dump(2);
    if (outcome == "check failed") EXPECT_TRUE(has(o.out, "your trip process stopped itself")) << o.out;
    std::printf("%s: %.1f s\n%s\n", name, took_s, o.out.c_str());
  }
}

TEST_F(TransferCli, TheSkeletonFailsSayingCWasNeverWrittenOnTheGpu) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  if (const std::string why = nvcc_missing(); !why.empty()) GTEST_SKIP() << why;
  const Outcome o = run("lab check 08 " + (kLab / "transfer.cu").string());
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "none of c was written")) << o.out;
  EXPECT_TRUE(has(o.out, "built in ")) << o.out;
}

}  // namespace
