// reduce on the CPU: each thread sums its share with SIMD lanes (the simd reduction clause
// permits reordering the additions, which plain -O3 may not), then OpenMP adds the thread sums.
#include "variants/cpu/cpu_layer.h"

namespace lb::cpu {
namespace {
class Reduce final : public HostVariant {
 public:
  void compute() override {
    const float* x = input(0);
    const std::int64_t n = shape_.n;
    float sum = 0.0f;
#pragma omp parallel for simd reduction(+ : sum) schedule(dynamic, kChunk)
    for (std::int64_t i = 0; i < n; ++i) sum += x[i];
    output_[0] = sum;
  }
};
}  // namespace
LB_REGISTER_VARIANT("cpu", "reduce", Reduce);
}  // namespace lb::cpu
