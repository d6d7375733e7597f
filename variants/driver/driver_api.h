// The CUDA driver API, reached the way cuda-python and CuPy reach it: libcuda.so.1 is opened at run
// time and each function is looked up with cuGetProcAddress. Linking libcuda directly would stop
// the whole binary from starting on a machine with no driver (CI); this way only this layer is
// unavailable there.
#pragma once
#include <cuda.h>

#include <string>

namespace lb::driver {

// The driver functions this layer calls. Names are cuda.h's, so versioned ones (cuMemAlloc is
// cuMemAlloc_v2) get the type the header declares, and the lookup asks for this header's version.
#define LB_DRIVER_FUNCTIONS(X)                                                                    \
  X(cuInit) X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain)                     \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoDAsync)  \
  X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction)                \
  X(cuLaunchKernel) X(cuGetErrorName) X(cuGetErrorString) X(cuStreamSynchronize) X(cuMemsetD32Async) \
  X(cuFuncSetAttribute)

struct Api {
#define LB_DRIVER_POINTER(name) decltype(&::name) name = nullptr;
  LB_DRIVER_FUNCTIONS(LB_DRIVER_POINTER)
#undef LB_DRIVER_POINTER
};

// Empty when the driver loaded and cuInit succeeded; otherwise why not.
std::string api_unavailable_reason();
// The loaded functions; throws std::runtime_error with the reason when unavailable.
const Api& cu();

[[noreturn]] void throw_cu_error(CUresult code, const char* call, const char* file, int line);

}  // namespace lb::driver

#define LB_CU_CHECK(call)                                                       \
  do {                                                                          \
    const CUresult lb_cu_status_ = (call);                                      \
    if (lb_cu_status_ != CUDA_SUCCESS)                                          \
      ::lb::driver::throw_cu_error(lb_cu_status_, #call, __FILE__, __LINE__);   \
  } while (0)
