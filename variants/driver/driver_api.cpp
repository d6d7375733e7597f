#include "variants/driver/driver_api.h"

#include <dlfcn.h>

#include <stdexcept>

#include "common/cuda_check.h"

namespace lb::driver {
namespace {

struct Loaded {
  Api api;
  std::string reason;  // empty when usable
};

const Loaded& loaded() {
  static const Loaded result = [] {
    Loaded l;
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* why = dlerror();
      l.reason = std::string("cannot load the CUDA driver: ") + (why ? why : "libcuda.so.1 not found");
      return l;
    }
    // The one symbol found by name; every other function comes from it, in the version this
    // header describes (CUDA_VERSION), as cuda.h's macros would have linked it.
    auto get_proc = reinterpret_cast<decltype(&::cuGetProcAddress)>(dlsym(library, "cuGetProcAddress_v2"));
    if (!get_proc) {
      l.reason = "the CUDA driver is too old: no cuGetProcAddress_v2 (need a CUDA 12+ driver)";
      return l;
    }
#define LB_DRIVER_LOOKUP(name)                                                                 \
  if (l.reason.empty()) {                                                                      \
    CUdriverProcAddressQueryResult found{};                                                    \
    if (get_proc(#name, reinterpret_cast<void**>(&l.api.name), CUDA_VERSION,                  \
                 CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||                       \
        found != CU_GET_PROC_ADDRESS_SUCCESS || !l.api.name)                                   \
      l.reason = std::string("the CUDA driver lacks ") + #name + " for CUDA " +                \
                 std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10); \
  }
    LB_DRIVER_FUNCTIONS(LB_DRIVER_LOOKUP)
#undef LB_DRIVER_LOOKUP
    if (!l.reason.empty()) return l;
    if (const CUresult status = l.api.cuInit(0); status != CUDA_SUCCESS) {
      const char* text = nullptr;
      l.api.cuGetErrorString(status, &text);
      l.reason = std::string("cuInit: ") + (text ? text : "unknown error");
    }
    return l;
  }();
  return result;
}

}  // namespace

std::string api_unavailable_reason() { return loaded().reason; }

const Api& cu() {
  const Loaded& l = loaded();
  if (!l.reason.empty()) throw std::runtime_error(l.reason);
  return l.api;
}

void throw_cu_error(CUresult code, const char* call, const char* file, int line) {
  const char* name = "unknown";
  const char* text = "unknown error";
  cu().cuGetErrorName(code, &name);
  cu().cuGetErrorString(code, &text);
  const std::string message = std::string(call) + " failed at " + source_path(file) + ":" + std::to_string(line) +
                              ": " + text + " (" + name + ")";
  if (code == CUDA_ERROR_OUT_OF_MEMORY) throw DeviceOutOfMemory(message, code);
  throw CudaError(message, code);
}

}  // namespace lb::driver
