// matmul on the CPU: OpenBLAS's sgemm when the build found it (a fair baseline: tuned, threaded,
// vectorised), otherwise a cache-blocked loop nest. The JSON records which one ran.
#include "variants/cpu/cpu_layer.h"

#ifdef LB_HAVE_CBLAS
#include <cblas.h>
#endif

namespace lb::cpu {
namespace {
class Matmul final : public HostVariant {
 public:
  void compute() override {
    const auto [m, n, k] = shape_;
    const float* A = input(0);
    const float* B = input(1);
    float* C = output_.data();
#ifdef LB_HAVE_CBLAS
    // beta = 0: C is overwritten, never read, so the NaN poison cannot leak into the result.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, A, int(k), B,
                int(n), 0.0f, C, int(n));
#else
    constexpr std::int64_t kRows = 32, kDepth = 256;
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t i0 = 0; i0 < m; i0 += kRows) {
      const std::int64_t i1 = std::min(i0 + kRows, m);
      for (std::int64_t i = i0; i < i1; ++i) std::fill(C + i * n, C + (i + 1) * n, 0.0f);
      for (std::int64_t l0 = 0; l0 < k; l0 += kDepth) {  // a slab of B that stays in cache
        const std::int64_t l1 = std::min(l0 + kDepth, k);
        for (std::int64_t i = i0; i < i1; ++i)
          for (std::int64_t l = l0; l < l1; ++l) {
            const float a = A[i * k + l];
            const float* b = B + l * n;
            float* c = C + i * n;
#pragma omp simd
            for (std::int64_t j = 0; j < n; ++j) c[j] += a * b[j];
          }
      }
    }
#endif
  }
};
}  // namespace
LB_REGISTER_VARIANT("cpu", "matmul", Matmul);
}  // namespace lb::cpu
