#include "lab/runners/nvrtc/limited_compile.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>  // RLIM_INFINITY
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>

#include "common/usage_error.h"
#include "lab/child/student_program.h"  // StudentCompileError
#include "lab/runners/compile_process.h"
#include "variants/nvrtc/nvrtc_compiler.h"

namespace lb::lab {

namespace {
std::filesystem::path& default_program() {
  static std::filesystem::path program;
  return program;
}
}  // namespace

void set_kernel_compile_program(const std::filesystem::path& layerbench) { default_program() = layerbench; }

namespace {

namespace fs = std::filesystem;

// The helper's files in its working folder, and its exit statuses.
constexpr const char* kSourceName = "source.cu";
constexpr const char* kCubinName = "kernel.cubin";
constexpr int kCompiled = 0, kDidNotCompile = 1, kHelperError = 2, kOutOfMemory = 3;
// A CUBIN larger than this is not a lab's kernel.
constexpr off_t kMaxCubinBytes = 64 << 20;

// The CUBIN the helper wrote: a regular file of its folder, opened without following a link (the
// folder is the compile process's to write: a link there to a file of ours must not be read back).
std::string read_cubin(const fs::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("the kernel compile process wrote no CUBIN (" + path.string() + ": " +
                                       std::strerror(errno) + ")");
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size <= 0 || info.st_size > kMaxCubinBytes) {
    close(fd);
    throw std::runtime_error("the kernel compile process's CUBIN " + path.string() +
                             " is not a regular file of at most 64 MiB");
  }
  std::string cubin(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t got = 0;
  while (got < cubin.size()) {
    const ssize_t n = read(fd, cubin.data() + got, cubin.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  if (got != cubin.size()) throw std::runtime_error("cannot read " + path.string() + " back");
  return cubin;
}

// NVRTC's log as the helper printed it (the student's own messages: shown, never parsed), without
// trailing newlines.
std::string log_of(const CompileProcessOutcome& done) {
  std::string log = done.shown_output();
  while (!log.empty() && (log.back() == '\n' || log.back() == '\0')) log.pop_back();
  return log;
}

// Runs the helper on `text` and hands back its CUBIN; the outcomes as the header says.
std::string compile_in_process(const std::string& name, const std::string& text, int sm,
                               const std::vector<std::string>& options, const KernelCompileLimits& limits,
                               std::string& log) {
  WorkingFolder folder("kernel-compile");
  {
    std::ofstream source(folder.path() / kSourceName, std::ios::binary);
    source << text;
    if (!source.flush()) throw std::runtime_error("cannot write the kernel text to " + folder.path().string());
  }
  const fs::path program = !limits.program.empty()        ? limits.program
                           : !default_program().empty() ? default_program()
                                                        : fs::read_symlink("/proc/self/exe");
  std::vector<std::string> argv = {program.string(), "lab", "run-helper", "nvrtc", std::to_string(sm), name};
  argv.insert(argv.end(), options.begin(), options.end());
  ProcessLimits process;
  process.wall_s = limits.wall_s;
  // NVRTC compiles on one thread: its CPU seconds never pass the wall's, so the wall limit speaks
  // first; RLIMIT_CPU is the backstop should the watch stop.
  process.cpu_s = static_cast<unsigned long>(std::ceil(limits.wall_s)) + 2;
#if defined(__SANITIZE_ADDRESS__)
  // An AddressSanitizer build of layerbench (the helper is layerbench itself) reserves terabytes of
  // address space for its shadow at start: there the wall and CPU limits bound a bomb alone.
  process.address_space = RLIM_INFINITY;
#else
  process.address_space = limits.address_space;
#endif
  process.file_bytes = static_cast<unsigned long long>(kMaxCubinBytes);
  std::vector<std::string> environment = allowed_environment();
  // layerbench links OpenBLAS, which starts a thread per core as it loads: the helper needs none.
  environment.push_back("OPENBLAS_NUM_THREADS=1");
#if defined(__SANITIZE_ADDRESS__)
  // LeakSanitizer stops the world at exit by tracing the process's threads, which the sandbox's
  // filter refuses (ptrace): it would then fail the compile.
  environment.push_back("ASAN_OPTIONS=detect_leaks=0");
#endif
  const CompileProcessOutcome done = run_compile_process(argv, environment, folder, process);

  if (done.timed_out || (!done.exited && done.signal == SIGXCPU)) throw StudentCompileError(ran_past_time_line(limits.wall_s));
  if (done.exited && done.exit_code == kOutOfMemory) throw StudentCompileError(ran_past_memory_line(limits.address_space));
  if (done.exited && done.exit_code == kDidNotCompile) throw driver::CompileFailed("did not compile", log_of(done));
  if (!done.exited && (done.signal == SIGSEGV || done.signal == SIGABRT || done.signal == SIGBUS))
    // NVRTC that cannot map more memory under RLIMIT_AS ends so where it does not report it.
    throw StudentCompileError(ran_past_memory_line(limits.address_space) + " (" + done.how_it_ended() + ")");
  if (!done.exited || done.exit_code != kCompiled)
    throw std::runtime_error("the kernel compile process (layerbench lab run-helper nvrtc) failed: " +
                             done.how_it_ended() + (done.output_bytes ? ": " + log_of(done) : ""));
  log = log_of(done);
  return read_cubin(folder.path() / kCubinName);
}

}  // namespace

std::string ran_past_time_line(double wall_s) {
  char text[96];
  std::snprintf(text, sizeof text, "did not compile: the compiler ran past %.0f s", wall_s);
  return text;
}

std::string ran_past_memory_line(unsigned long long address_space) {
  return "did not compile: the compiler ran past " + std::to_string(address_space >> 20) + " MiB of memory";
}

driver::CompiledProgram compile_in_limited_process(const std::string& name, const std::string& text, int sm,
                                                   const std::vector<std::string>& options, bool use_cache,
                                                   const KernelCompileLimits& limits) {
  // The key nvrtc_compiler.cpp's compile_cubin gives the same compile, so either's entry serves both.
  nvrtc::KernelKey key{"nvrtc " + nvrtc::nvrtc_version(), name, text, {}, nvrtc::nvrtc_options(sm), sm};
  key.options.insert(key.options.end(), options.begin(), options.end());
  std::string log;
  const nvrtc::CachedCubin cached =
      nvrtc::cached_cubin(nvrtc::KernelCache::of("", use_cache), key,
                          [&] { return compile_in_process(name, text, sm, options, limits, log); });
  return {cached.cubin, cached.from_cache, cached.ms, log};
}

int run_kernel_compile_helper(const std::vector<std::string>& args) {
  const auto fail = [](const std::string& why) {
    std::fprintf(stderr, "layerbench lab run-helper nvrtc: error: %s (the kernel compile process, which the lab "
                 "check starts)\n", why.c_str());
    return kHelperError;
  };
  if (args.size() < 2) return fail("expected SM NAME [OPTION...]");
  int sm = 0;
  try {
    sm = std::stoi(args[0]);
  } catch (const std::exception&) {
    return fail("SM is not a number: " + args[0]);
  }
  std::ifstream in(kSourceName, std::ios::binary);
  if (!in) return fail(std::string("cannot read ") + kSourceName + " in the working folder");
  std::stringstream text;
  text << in.rdbuf();
  try {
    const nvrtc::CompiledKernel compiled =
        nvrtc::compile_cubin({args[1], text.str(), {}, sm, {args.begin() + 2, args.end()}}, {"", false});
    std::fputs(compiled.log.c_str(), stdout);
    std::ofstream cubin(kCubinName, std::ios::binary);
    cubin.write(compiled.cubin.data(), static_cast<std::streamsize>(compiled.cubin.size()));
    if (!cubin.flush()) return fail(std::string("cannot write ") + kCubinName);
    return kCompiled;
  } catch (const nvrtc::NvrtcCompileError& e) {
    // NVRTC that cannot map more memory under RLIMIT_AS says so in its log, as a compile error
    // ("<builtin header>(5287): catastrophic error: out of memory"), or in its status.
    if (std::string_view(e.what()).find("NVRTC_ERROR_OUT_OF_MEMORY") != std::string_view::npos ||
        e.log().find("): catastrophic error: out of memory") != std::string::npos)
      return kOutOfMemory;
    std::fputs(e.log().c_str(), stdout);
    return kDidNotCompile;
  } catch (const std::bad_alloc&) {
    return kOutOfMemory;
  } catch (const std::exception& e) {
    if (std::string_view(e.what()).find("NVRTC_ERROR_OUT_OF_MEMORY") != std::string_view::npos) return kOutOfMemory;
    return fail(e.what());
  }
}

}  // namespace lb::lab
