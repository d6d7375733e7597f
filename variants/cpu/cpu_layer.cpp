#include "variants/cpu/cpu_layer.h"

#include <omp.h>

#ifdef LB_HAVE_CBLAS
extern "C" int openblas_get_num_threads(void);
extern "C" char* openblas_get_config(void);
#endif

namespace lb::cpu {

std::string matmul_backend() {
#ifdef LB_HAVE_CBLAS
  return std::string(LB_CBLAS_NAME) + " cblas_sgemm (" + openblas_get_config() + ", " +
         std::to_string(openblas_get_num_threads()) + " threads)";
#else
  return "cache-blocked OpenMP loop nest (no CBLAS found at build time)";
#endif
}

LB_REGISTER_LAYER(Layer{
    .name = "cpu",
    .summary = "host CPU baseline: OpenMP on all cores, vectorised loops, OpenBLAS sgemm",
    .on_gpu = false,
    .rank = 0,
    .unavailable_reason = [] { return std::string(); },
    .describe =
        [] {
          return nlohmann::json{{"threads", omp_get_max_threads()},
                                {"matmul", matmul_backend()},
                                {"vectorised_for", LB_CPU_TARGET}};
        },
});

}  // namespace lb::cpu
