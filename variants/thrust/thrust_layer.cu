// Registers the layer this compilation builds: "thrust" (nvcc, CUDA backend) or "thrust-omp" (g++,
// OpenMP backend). The same file is compiled once for each.
#include <cuda/std/version>

#include "common/gpu.h"
#include "variants/thrust/thrust_layer.h"
#include <nlohmann/json.hpp>

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
#include <omp.h>
#endif

namespace lb::LB_THRUST_NS {
namespace {

std::string dotted(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

nlohmann::json describe() {
  nlohmann::json j{
      {"thrust_version", dotted(THRUST_MAJOR_VERSION, THRUST_MINOR_VERSION, THRUST_SUBMINOR_VERSION)},
      {"cccl_version", dotted(CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION, CCCL_PATCH_VERSION)},
  };
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  j["backend"] = "CUDA (CUB kernels) on the harness's stream (policy.on(stream)); transform with par_nosync, "
                 "reduce with a thrust::mr pool for its temporary storage";
  j["compiler"] = "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__);
#else
  j["backend"] = "OpenMP";
  j["threads"] = omp_get_max_threads();
  j["compiler"] = "g++ " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__);
  j["vectorised_for"] = LB_CPU_TARGET;
#endif
  return j;
}

}  // namespace

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
// Every algorithm gets the harness's stream through its policy (thrust_layer.h), so the harness's
// events bracket exactly the layer's work. The policies that synchronize before returning
// (thrust::cuda::par, used where a value comes back to the host) make run() wait: those variants
// say so (run_waits()).
LB_REGISTER_LAYER(Layer{
    .name = LB_THRUST_LAYER,
    .summary = "Thrust on the CUDA backend: device_vector, transform, reduce (CUB underneath)",
    .on_gpu = true,
    .rank = 30,
    .unavailable_reason = gpu_unavailable_reason,
    .describe = describe,
});
#else
// The OpenMP backend computes on the calling thread's team: the harness's host clock times it, as
// for cpu.
LB_REGISTER_LAYER(Layer{
    .name = LB_THRUST_LAYER,
    .summary = "the same Thrust code on the OpenMP backend: host memory, all CPU cores",
    .on_gpu = false,
    .rank = 5,
    .unavailable_reason = [] { return std::string(); },
    .describe = describe,
    // The index-transform matmul does no blocking for the caches: about 2 GFLOP/s per core, so
    // 4096^3 would take minutes. The default sweep stops at 1024^3; --size asks for more.
    .in_default_sweep = [](const Workload& w, const Shape& s) { return w.size_form() != SizeForm::kProduct || s.m * s.n * s.k <= (1LL << 30); },
});
#endif

}  // namespace lb::LB_THRUST_NS
