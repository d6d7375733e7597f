#include "variants/nvrtc/kernel_cache.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/elapsed.h"

namespace lb::nvrtc {
namespace {

namespace fs = std::filesystem;

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
  } catch (...) {  // not a number: not an entry of ours
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

std::string cache_key(const KernelKey& key) {
  // The first line is the compiler's identity: for the driver layer's "nvrtc <version>" this is the
  // text its keys hashed before the Python layers shared the cache, so its entries stay valid.
  std::ostringstream text;
  text << key.compiler << "\nsm " << key.sm << "\n";
  for (const auto& o : key.options) text << "option " << o << "\n";
  text << "source " << key.source_path << "\n" << key.source_text << "\n";
  for (const auto& [name, header] : key.headers) text << "header " << name << "\n" << header << "\n";
  return key_hash(text.str());
}

std::string cache_file(const KernelCache& cache, const KernelKey& key) {
  if (!cache.enabled) return std::string();
  return (fs::path(cache.dir) / (stem_of(key.source_path) + "-sm" + std::to_string(key.sm) + "-" + cache_key(key) +
                                 ".cubin"))
      .string();
}

CachedCubin cached_cubin(const KernelCache& cache, const KernelKey& key, const std::function<std::string()>& compile) {
  CachedCubin result;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string hash = cache_key(key);
  result.cache_file = cache_file(cache, key);
  if (!result.cache_file.empty() && read_entry(result.cache_file, hash, result.cubin)) {
    result.from_cache = true;
    result.ms = ms_since(t0);
    return result;
  }
  result.cubin = compile();
  result.ms = ms_since(t0);
  if (!result.cache_file.empty()) write_entry(result.cache_file, hash, result.cubin);
  return result;
}

}  // namespace lb::nvrtc
