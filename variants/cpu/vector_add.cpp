// vector_add on the CPU: one parallel, vectorised loop. Memory-bound like the GPU version, but
// against the host's DRAM bandwidth.
#include "variants/cpu/cpu_layer.h"

namespace lb::cpu {
namespace {
class VectorAdd final : public HostVariant {
 public:
  void compute() override {
    const float* a = input(0);
    const float* b = input(1);
    float* c = output_.data();
    const std::int64_t n = shape_.n;
#pragma omp parallel for simd schedule(dynamic, kChunk)
    for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
};
}  // namespace
LB_REGISTER_VARIANT("cpu", "vector_add", VectorAdd);
}  // namespace lb::cpu
