// saxpy on the CPU: y = alpha*x + y in one parallel, vectorised loop.
#include "variants/cpu/cpu_layer.h"

namespace lb::cpu {
namespace {
class Saxpy final : public HostVariant {
 public:
  void compute() override {
    const float alpha = problem_->alpha;
    const float* x = input(0);
    float* y = output_.data();
    const std::int64_t n = shape_.n;
#pragma omp parallel for simd schedule(dynamic, kChunk)
    for (std::int64_t i = 0; i < n; ++i) y[i] = alpha * x[i] + y[i];
  }
};
}  // namespace
LB_REGISTER_VARIANT("cpu", "saxpy", Saxpy);
}  // namespace lb::cpu
