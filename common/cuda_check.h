// Errors from CUDA runtime calls become exceptions that name the call, where it was made and
// CUDA's text. Shared by the harness and every layer.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace lb {

class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& message, int code) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// A device allocation that did not fit: the harness skips the case instead of failing it.
class DeviceOutOfMemory : public CudaError {
 public:
  using CudaError::CudaError;
};

// Strips the source-tree prefix from __FILE__ so messages read "variants/runtime/x.cu:12".
const char* source_path(const char* file);

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace lb

#define LB_CUDA_CHECK(call)                                                     \
  do {                                                                          \
    const cudaError_t lb_status_ = (call);                                      \
    if (lb_status_ != cudaSuccess)                                              \
      ::lb::throw_cuda_error(lb_status_, #call, __FILE__, __LINE__);            \
  } while (0)

// A <<<>>> launch returns nothing: its errors (bad configuration, missing kernel image) are read
// right after it.
#define LB_CHECK_LAUNCH() LB_CUDA_CHECK(cudaGetLastError())
