// The one on-disk cache of compiled kernels (CUBIN), for every layer that compiles our kernel text
// at run time: NVRTC (nvrtc_compiler.cpp: the driver layer's, and the runtime layer's for a workload
// folder) and the Python layers that call a compiler of their own (cuda.bindings' NVRTC, cuda.core's
// Program), which reach it through the adapter's lb_native module (variants/python/lb_native.cpp). One key scheme and one file format:
// an entry written by one is read back by the other when the key is the same.
//
// No NVRTC here: the compile is the caller's callback, so that the Python layers' own compilers
// make their CUBINs, and so that lb_native's extension build (tests/python) links no NVRTC.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace lb::nvrtc {

// Where compiled kernels are kept. Disabled: every compile runs the compiler.
struct KernelCache {
  std::string dir;
  bool enabled = true;
  // $LAYERBENCH_KERNEL_CACHE, else $XDG_CACHE_HOME/layerbench/kernels, else ~/.cache/layerbench/kernels.
  static std::string default_dir();
  // The cache a layer's settings name (--kernel-cache DIR, --no-kernel-cache): `dir`, or the
  // default folder when it is empty.
  static KernelCache of(const std::string& dir, bool enabled) { return {dir.empty() ? default_dir() : dir, enabled}; }
};

// Everything that changes the CUBIN a compile makes, and so the cache key.
struct KernelKey {
  // Which compiler, with its version: "nvrtc 13.0" (the driver layer), "cuda.core 0.4.1, NVRTC
  // 13.0". Two compilers make two CUBINs of one text; their entries never serve each other.
  std::string compiler;
  std::string source_path;  // the program's name ("workloads/matmul/kernels.cu"); names the file
  std::string source_text;
  std::vector<std::pair<std::string, std::string>> headers;  // include name, text
  std::vector<std::string> options;                          // every option the compiler is given
  int sm = 90;                                                // target: sm_<sm>
};

// 32 hex digits: two 64-bit FNV-1a hashes of the key's parts, stable across runs and machines.
std::string cache_key(const KernelKey& key);
// The entry's file in `cache`: "<dir>/<workload>-<stem>-sm<N>-<key>.cubin"; empty when disabled.
std::string cache_file(const KernelCache& cache, const KernelKey& key);

struct CachedCubin {
  std::string cubin;
  bool from_cache = false;
  double ms = 0.0;          // the compile's time, or the cache read's on a hit
  std::string cache_file;   // empty when the cache is off
};

// The CUBIN of `key` from the cache, else compile()'s, written to the cache (best effort: a cache
// that cannot be written costs the next run a compile). An entry that is truncated, corrupt,
// unreadable or of another key is ignored and rewritten. What compile() throws goes through
// unchanged, and nothing is written then.
CachedCubin cached_cubin(const KernelCache& cache, const KernelKey& key, const std::function<std::string()>& compile);

}  // namespace lb::nvrtc
