// Run-time compilation with NVRTC, through the on-disk cache of what it produced (kernel_cache.h,
// the cache the Python layers' compiles share). Not a layer: what the layers that compile kernel
// text at run time share (the driver layer; the runtime layer, for a workload folder's kernels.cu;
// through the driver layer's kernel_program.h, the labs).
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "variants/nvrtc/kernel_cache.h"

namespace lb::nvrtc {

struct CompileRequest {
  std::string source_path;  // names the program in NVRTC's log: "<path>(<line>): error: ..."
  std::string source_text;
  std::vector<std::pair<std::string, std::string>> headers;  // include name, text
  int sm = 90;                                                // target: sm_<sm> machine code
  std::vector<std::string> extra_options;                     // after nvrtc_options(sm), e.g. -lineinfo
};

struct CompiledKernel {
  std::string cubin;
  bool from_cache = false;
  double compile_ms = 0.0;  // NVRTC's time, or the cache read's on a hit
  std::string cache_file;   // empty when the cache is off
  std::string log;          // NVRTC's log (warnings), empty on a cache hit
};

// The source did not compile: what() names the file and carries the log; log() is NVRTC's log
// alone, whose lines read "<source_path>(<line>): error: ...".
class NvrtcCompileError : public std::runtime_error {
 public:
  NvrtcCompileError(const std::string& message, std::string log) : std::runtime_error(message), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

std::string nvrtc_version();                  // e.g. "13.0"
std::vector<std::string> nvrtc_options(int sm);  // what every compile passes to NVRTC

// Compiles to CUBIN for sm_<sm>, or reads it from the cache. The cache key (kernel_cache.h) hashes
// the source text, headers, options, the compiler ("nvrtc <version>") and target. A cache entry
// that is truncated, corrupt or unreadable is ignored and rewritten. Throws NvrtcCompileError naming the source file and
// carrying NVRTC's log when compilation fails (std::runtime_error for NVRTC's other failures).
CompiledKernel compile_cubin(const CompileRequest& request, const KernelCache& cache);

}  // namespace lb::nvrtc
