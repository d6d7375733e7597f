#include "variants/cpu/cpu_layer.h"

#include <omp.h>

#include <chrono>

#include "harness/elapsed.h"

#ifdef LB_HAVE_CBLAS
extern "C" int openblas_get_num_threads(void);
extern "C" char* openblas_get_config(void);
#endif

namespace lb::cpu {
namespace {

class HostClock final : public SampleClock {
 public:
  void start() override { t0_ = std::chrono::steady_clock::now(); }
  void stop() override { ms_ = ms_since(t0_); }
  double elapsed_ms() override { return ms_; }

 private:
  std::chrono::steady_clock::time_point t0_;
  double ms_ = 0.0;
};

}  // namespace
}  // namespace lb::cpu

namespace lb {
std::unique_ptr<SampleClock> make_host_clock() { return std::make_unique<cpu::HostClock>(); }
}  // namespace lb

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
    .make_clock = make_host_clock,
    .describe =
        [] {
          return nlohmann::json{{"threads", omp_get_max_threads()},
                                {"matmul", matmul_backend()},
                                {"vectorised_for", LB_CPU_TARGET}};
        },
});

}  // namespace lb::cpu
