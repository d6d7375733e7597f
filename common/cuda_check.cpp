#include "common/cuda_check.h"

#include <cstring>

namespace lb {

const char* source_path(const char* file) {
  const char* root = LB_SOURCE_ROOT;
  const std::size_t len = std::strlen(root);
  if (std::strncmp(file, root, len) == 0) return file + len;
  // Compiled through ccache with CCACHE_BASEDIR at the checkout (scripts/build.sh), __FILE__ is
  // relative to the compiler's folder inside the build tree: "../workloads/...". The source-relative
  // path follows the leading "../" and "./".
  while (std::strncmp(file, "../", 3) == 0 || std::strncmp(file, "./", 2) == 0) file += file[1] == '.' ? 3 : 2;
  return file;
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
