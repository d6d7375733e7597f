#include "variants/nvrtc/nvrtc_compiler.h"

#include <nvrtc.h>

#include <stdexcept>

namespace lb::nvrtc {
namespace {

// NVRTC calls return a status; the message names the call and NVRTC's text.
void nvrtc_check(nvrtcResult status, const char* call) {
  if (status != NVRTC_SUCCESS) throw std::runtime_error(std::string(call) + ": " + nvrtcGetErrorString(status));
}
#define LB_NVRTC_CHECK(call) nvrtc_check((call), #call)

// NVRTC's CUBIN of `key`'s text for sm_<key.sm> with key.options; `log` gets NVRTC's log (its
// warnings). Throws NvrtcCompileError with the log when the text does not compile.
std::string nvrtc_compile(const KernelKey& key, std::string& log) {
  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : key.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  nvrtcProgram program = nullptr;
  LB_NVRTC_CHECK(nvrtcCreateProgram(&program, key.source_text.c_str(), key.source_path.c_str(),
                                    static_cast<int>(header_texts.size()), header_texts.data(),
                                    header_names.data()));
  struct Destroy {
    nvrtcProgram* p;
    ~Destroy() { nvrtcDestroyProgram(p); }  // a destructor reports nothing: the program is gone either way
  } destroy{&program};

  std::vector<const char*> option_ptrs;
  for (const auto& o : key.options) option_ptrs.push_back(o.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  std::size_t log_size = 0;
  LB_NVRTC_CHECK(nvrtcGetProgramLogSize(program, &log_size));
  log.assign(log_size, '\0');
  if (log_size > 0) LB_NVRTC_CHECK(nvrtcGetProgramLog(program, log.data()));
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (compiled != NVRTC_SUCCESS)
    throw NvrtcCompileError("NVRTC could not compile " + key.source_path + " for sm_" + std::to_string(key.sm) +
                                " (" + nvrtcGetErrorString(compiled) + "):\n" + log,
                            log);

  std::size_t cubin_size = 0;
  LB_NVRTC_CHECK(nvrtcGetCUBINSize(program, &cubin_size));
  std::string cubin(cubin_size, '\0');
  LB_NVRTC_CHECK(nvrtcGetCUBIN(program, cubin.data()));
  return cubin;
}

}  // namespace

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
  KernelKey key{"nvrtc " + nvrtc_version(), request.source_path, request.source_text, request.headers,
                nvrtc_options(request.sm), request.sm};
  key.options.insert(key.options.end(), request.extra_options.begin(), request.extra_options.end());

  CompiledKernel result;
  const CachedCubin cached = cached_cubin(cache, key, [&] { return nvrtc_compile(key, result.log); });
  result.cubin = cached.cubin;
  result.from_cache = cached.from_cache;
  result.compile_ms = cached.ms;
  result.cache_file = cached.cache_file;
  return result;
}

}  // namespace lb::nvrtc
