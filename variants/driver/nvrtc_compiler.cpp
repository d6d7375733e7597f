#include "variants/driver/nvrtc_compiler.h"

#include "common/elapsed.h"

#include <nvrtc.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace lb::driver {
namespace {

namespace fs = std::filesystem;

// NVRTC calls return a status; the message names the call and NVRTC's text.
void nvrtc_check(nvrtcResult status, const char* call) {
  if (status != NVRTC_SUCCESS) throw std::runtime_error(std::string(call) + ": " + nvrtcGetErrorString(status));
}
#define LB_NVRTC_CHECK(call) nvrtc_check((call), #call)

// Two independent 64-bit FNV-1a hashes: 128 bits of key, stable across runs and machines.
std::string key_hash(const std::string& text) {
  std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  for (unsigned char c : text) {
    a = (a ^ c) * 0x100000001b3ull;
    b = (b ^ c) * 0x100000001b3ull;
    b ^= b >> 29;
  }
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return hex;
}

std::string stem_of(const std::string& source_path) {
  const fs::path p(source_path);
  return p.parent_path().filename().string() + "-" + p.stem().string();  // "matmul-kernels"
}

// Entry layout: "layerbench-cubin 1\n<key hash>\n<payload bytes>\n<payload hash>\n<payload>".
constexpr const char* kMagic = "layerbench-cubin 1";

bool read_entry(const fs::path& file, const std::string& key, std::string& payload) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::string magic, stored_key, size_text, payload_hash;
  if (!std::getline(in, magic) || magic != kMagic) return false;
  if (!std::getline(in, stored_key) || stored_key != key) return false;
  if (!std::getline(in, size_text) || !std::getline(in, payload_hash)) return false;
  std::size_t size = 0;
  try {
    size = std::stoull(size_text);
  } catch (...) {
    return false;
  }
  if (size == 0 || size > (std::size_t{1} << 30)) return false;
  payload.assign(size, '\0');
  if (!in.read(payload.data(), static_cast<std::streamsize>(size))) return false;
  if (in.peek() != std::char_traits<char>::eof()) return false;  // trailing bytes: not ours
  return key_hash(payload) == payload_hash;
}

// Best effort: a cache that cannot be written only costs the next run a compile.
void write_entry(const fs::path& file, const std::string& key, const std::string& payload) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const fs::path temp = file.string() + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary);
    out << kMagic << '\n' << key << '\n' << payload.size() << '\n' << key_hash(payload) << '\n' << payload;
    if (!out.flush()) {
      fs::remove(temp, ec);
      return;
    }
  }
  fs::rename(temp, file, ec);  // atomic: readers see the old entry or the new one, never half
  if (ec) fs::remove(temp, ec);
}

}  // namespace

std::string KernelCache::default_dir() {
  if (const char* dir = std::getenv("LAYERBENCH_KERNEL_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/layerbench/kernels";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/layerbench/kernels";
  return (fs::temp_directory_path() / "layerbench-kernels").string();
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  LB_NVRTC_CHECK(nvrtcVersion(&major, &minor));
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtc_options(int sm) {
  // sm_XY (not compute_XY) asks for machine code, so no JIT is left for the driver to do.
  // nvcc compiles the runtime layer's copy with the same defaults (-O3 device code, FMA on).
  return {"--gpu-architecture=sm_" + std::to_string(sm), "--std=c++17"};
}

CompiledKernel compile_cubin(const CompileRequest& request, const KernelCache& cache) {
  std::vector<std::string> options = nvrtc_options(request.sm);
  options.insert(options.end(), request.extra_options.begin(), request.extra_options.end());
  std::ostringstream key_text;
  key_text << "nvrtc " << nvrtc_version() << "\nsm " << request.sm << "\n";
  for (const auto& o : options) key_text << "option " << o << "\n";
  key_text << "source " << request.source_path << "\n" << request.source_text << "\n";
  for (const auto& [name, text] : request.headers) key_text << "header " << name << "\n" << text << "\n";
  const std::string key = key_hash(key_text.str());

  CompiledKernel result;
  const auto t0 = std::chrono::steady_clock::now();
  if (cache.enabled) {
    result.cache_file = (fs::path(cache.dir) / (stem_of(request.source_path) + "-sm" + std::to_string(request.sm) +
                                                "-" + key + ".cubin")).string();
    if (read_entry(result.cache_file, key, result.cubin)) {
      result.from_cache = true;
      result.compile_ms = ms_since(t0);
      return result;
    }
  }

  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : request.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  nvrtcProgram program = nullptr;
  LB_NVRTC_CHECK(nvrtcCreateProgram(&program, request.source_text.c_str(), request.source_path.c_str(),
                                    static_cast<int>(header_texts.size()), header_texts.data(),
                                    header_names.data()));
  struct Destroy {
    nvrtcProgram* p;
    ~Destroy() { nvrtcDestroyProgram(p); }
  } destroy{&program};

  std::vector<const char*> option_ptrs;
  for (const auto& o : options) option_ptrs.push_back(o.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  std::size_t log_size = 0;
  LB_NVRTC_CHECK(nvrtcGetProgramLogSize(program, &log_size));
  result.log.assign(log_size, '\0');
  if (log_size > 0) LB_NVRTC_CHECK(nvrtcGetProgramLog(program, result.log.data()));
  while (!result.log.empty() && (result.log.back() == '\0' || result.log.back() == '\n')) result.log.pop_back();
  if (compiled != NVRTC_SUCCESS)
    throw NvrtcCompileError("NVRTC could not compile " + request.source_path + " for sm_" +
                                std::to_string(request.sm) + " (" + nvrtcGetErrorString(compiled) + "):\n" + result.log,
                            result.log);

  std::size_t cubin_size = 0;
  LB_NVRTC_CHECK(nvrtcGetCUBINSize(program, &cubin_size));
  result.cubin.assign(cubin_size, '\0');
  LB_NVRTC_CHECK(nvrtcGetCUBIN(program, result.cubin.data()));
  result.compile_ms = ms_since(t0);
  if (cache.enabled) write_entry(result.cache_file, key, result.cubin);
  return result;
}

}  // namespace lb::driver
