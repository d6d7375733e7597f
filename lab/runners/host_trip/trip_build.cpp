#include "lab/runners/host_trip/trip_build.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/usage_error.h"
#include "lab/commands/sanitize.h"  // find_cuda_tool
#include "lab/child/student_program.h"  // StudentCompileError
#include "lab/runners/host_trip/trip_rules.h"
#include "lab/child/watchdog.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

// nvcc gets this long per step: less than the lab's limit (60 s), so that this child stops a
// compile that does not end (nvcc runs in a process group of its own, which the parent's watchdog
// would not reach) and says so, rather than being stopped itself.
constexpr double kNvccLimitS = 45;

}  // namespace

// A private folder for the build's files, removed with everything in it when the last
// StudentLibrary naming it goes (after the trip process has ended).
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "lb-trip-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp(" + pattern + ") failed: " + std::strerror(errno));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

// Runs one nvcc step; StudentCompileError with nvcc's output (`what` first) when it fails.
void run_nvcc(const std::vector<std::string>& argv, const std::string& what) {
  const ChildOutcome done = run_with_time_limit(argv, kNvccLimitS);
  if (done.exited && done.exit_code == 0) return;
  std::string message = done.err + done.out;
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  if (done.timed_out)
    message += (message.empty() ? "" : "\n") + std::string("nvcc did not finish in ") +
               std::to_string(static_cast<int>(kNvccLimitS)) + " s";
  throw StudentCompileError(what.empty() ? message : what + (message.empty() ? "" : ":\n" + message));
}

// The five functions, from the loaded library. Never dlclose'd: the runtime keeps the file's
// kernels registered until the process exits, when the file's own exit handler unregisters them.
class LoadedTrip final : public Trip {
 public:
  using Alloc = void* (*)(std::size_t);
  using Free = void (*)(void*);
  using Setup = cudaError_t (*)(long long);
  using Run = cudaError_t (*)(const float*, const float*, float*, long long);
  using Teardown = cudaError_t (*)();

  LoadedTrip(Alloc alloc, Free free, Setup setup, Run run, Teardown teardown)
      : alloc_(alloc), free_(free), setup_(setup), run_(run), teardown_(teardown) {}
  void* host_alloc(std::size_t bytes) override { return alloc_(bytes); }
  void host_free(void* p) override { free_(p); }
  cudaError_t setup(long long n) override { return setup_(n); }
  cudaError_t trip(const float* a, const float* b, float* c, long long n) override { return run_(a, b, c, n); }
  cudaError_t teardown() override { return teardown_(); }

 private:
  Alloc alloc_;
  Free free_;
  Setup setup_;
  Run run_;
  Teardown teardown_;
};

}  // namespace

std::unique_ptr<Trip> load_student_trip(const fs::path& library, const fs::path& file) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw StudentCompileError(file.string() + ": the compiled file does not load: " + dlerror());
  std::vector<std::string> missing;
  const auto find = [&](const char* name) {
    void* symbol = dlsym(handle, name);
    if (!symbol) missing.push_back(name);
    return symbol;
  };
  void* alloc = find("lab_host_alloc");
  void* free = find("lab_host_free");
  void* setup = find("lab_setup");
  void* run = find("lab_trip");
  void* teardown = find("lab_teardown");
  if (!missing.empty())
    throw StudentCompileError(file.string() + ": defines no extern \"C\" " + joined(missing) +
                              ": the runner calls lab_host_alloc, lab_host_free, lab_setup, lab_trip and lab_teardown "
                              "(README.md)");
  return std::make_unique<LoadedTrip>(reinterpret_cast<LoadedTrip::Alloc>(alloc), reinterpret_cast<LoadedTrip::Free>(free),
                                      reinterpret_cast<LoadedTrip::Setup>(setup), reinterpret_cast<LoadedTrip::Run>(run),
                                      reinterpret_cast<LoadedTrip::Teardown>(teardown));
}

namespace {

template <class T>
T read_at(const std::string& data, std::size_t offset) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) throw std::runtime_error("truncated");
  T value;
  std::memcpy(&value, data.data() + offset, sizeof(T));
  return value;
}

}  // namespace

std::vector<std::string> undefined_symbols(const fs::path& object) {
  std::ifstream in(object, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  const auto fail = [&object](const std::string& why) -> std::runtime_error {
    return std::runtime_error(object.string() + ": " + why);
  };
  if (data.size() < sizeof(Elf64_Ehdr) || std::memcmp(data.data(), ELFMAG, SELFMAG) != 0 ||
      data[EI_CLASS] != ELFCLASS64 || data[EI_DATA] != ELFDATA2LSB)
    throw fail("not a 64-bit little-endian ELF file");
  std::vector<std::string> names;
  try {
    const auto header = read_at<Elf64_Ehdr>(data, 0);
    const auto section = [&](std::size_t i) { return read_at<Elf64_Shdr>(data, header.e_shoff + i * header.e_shentsize); };
    for (std::size_t i = 0; i < header.e_shnum; ++i) {
      const Elf64_Shdr symbols = section(i);
      if (symbols.sh_type != SHT_SYMTAB && symbols.sh_type != SHT_DYNSYM) continue;
      if (symbols.sh_entsize < sizeof(Elf64_Sym) || symbols.sh_link >= header.e_shnum) throw fail("bad symbol table");
      const Elf64_Shdr strings = section(symbols.sh_link);
      for (std::size_t k = 0; k < symbols.sh_size / symbols.sh_entsize; ++k) {
        const auto sym = read_at<Elf64_Sym>(data, symbols.sh_offset + k * symbols.sh_entsize);
        const unsigned bind = ELF64_ST_BIND(sym.st_info);
        if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0 || (bind != STB_GLOBAL && bind != STB_WEAK)) continue;
        if (sym.st_name >= strings.sh_size || strings.sh_offset + sym.st_name >= data.size()) throw fail("bad symbol name");
        const char* name = data.data() + strings.sh_offset + sym.st_name;
        names.emplace_back(name, strnlen(name, data.size() - (strings.sh_offset + sym.st_name)));
      }
    }
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()) == "truncated") throw fail("truncated ELF file");
    throw;
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

fs::path find_nvcc(std::string* why_not) {
#ifdef LB_NVCC
  if (std::error_code ec; fs::is_regular_file(LB_NVCC, ec)) return LB_NVCC;
#endif
  const ToolLookup tool = find_cuda_tool("nvcc");
  if (!tool.found() && why_not) *why_not = tool.why_not;
  return tool.path;
}

void check_student_source(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UsageError("cannot read " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<RuleViolation> violations = source_rule_violations(text.str());
  if (!violations.empty()) throw StudentCompileError(source_rules_message(file, violations));
}

std::string compile_and_check_student_file(const fs::path& file, const fs::path& object, const TripBuild& build) {
  check_student_source(file);
  std::string why_not;
  const fs::path nvcc = find_nvcc(&why_not);
  if (nvcc.empty()) throw std::runtime_error("cannot build " + file.string() + ": " + why_not);
  std::vector<std::string> argv = {nvcc.string(), "-O3", "-std=c++17", "-arch=sm_" + std::to_string(build.sm),
                                   "-Xcompiler", "-fPIC"};
  if (build.line_info) argv.push_back("-lineinfo");
  if (build.debug) argv.push_back("-G");
  argv.insert(argv.end(), {"-c", file.string()});
  // As the student would type it: nvcc by name, without the private folder's object.
  std::vector<std::string> shown = argv;
  shown.front() = "nvcc";
  argv.insert(argv.end(), {"-o", object.string()});
  run_nvcc(argv, "");
  if (const std::vector<std::string> forbidden = forbidden_symbols(undefined_symbols(object)); !forbidden.empty())
    throw StudentCompileError(forbidden_symbols_message(file, forbidden));
  return joined(shown);
}

StudentLibrary build_student_library(const fs::path& file, const TripBuild& build) {
  StudentLibrary built;
  built.folder = std::make_shared<const TempDir>();
  const fs::path object = built.folder->path() / "student.o";
  built.library = built.folder->path() / "student.so";
  const auto start = std::chrono::steady_clock::now();
  built.command = compile_and_check_student_file(file, object, build);
  std::string why_not;
  run_nvcc({find_nvcc(&why_not).string(), "-shared", "-cudart", "shared", "-o", built.library.string(),
            object.string()},
           file.string() + ": the compiled file does not link");
  built.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return built;
}

}  // namespace lb::lab
