#include "common/cuda_check.h"

#include <cstring>

namespace lb {

const char* source_path(const char* file) {
  const char* root = LB_SOURCE_ROOT;
  const std::size_t len = std::strlen(root);
  return std::strncmp(file, root, len) == 0 ? file + len : file;
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::string message = std::string(call) + " failed at " + source_path(file) + ":" +
                        std::to_string(line) + ": " + cudaGetErrorString(code) + " (" +
                        cudaGetErrorName(code) + ")";
  cudaGetLastError();  // clear a non-sticky error so later cases start clean
  if (code == cudaErrorMemoryAllocation) throw DeviceOutOfMemory(message, code);
  throw CudaError(message, code);
}

}  // namespace lb
