// The kernel text, embedded into the binary at build time (cmake/kernel_sources.cpp.in) from the
// same files nvcc compiles for the runtime layer, so NVRTC compiles exactly that text and
// layerbench runs from any directory.
#pragma once
#include <span>
#include <string>

namespace lb::driver {

struct EmbeddedSource {
  const char* path;  // relative to the source tree, e.g. "workloads/matmul/kernels.cu"
  const char* text;
};

std::span<const EmbeddedSource> embedded_sources();
const EmbeddedSource& embedded_source(const std::string& path);  // throws when unknown

}  // namespace lb::driver
