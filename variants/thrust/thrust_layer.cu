// Registers the layer this compilation builds: "thrust" (nvcc, CUDA backend) or "thrust-omp" (g++,
// OpenMP backend). The same file is compiled once for each.
#include <cuda/std/version>

#include "harness/device_info.h"
#include "variants/thrust/thrust_layer.h"

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
  j["backend"] = "CUDA (CUB kernels) on the legacy default stream; transform with par_nosync, reduce with a "
                 "thrust::mr pool for its temporary storage";
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
// Thrust's CUDA policies (the default one, par_nosync, and either with an allocator) launch on
// cuda_cub::default_stream(), which is cudaStreamLegacy unless CUDA_API_PER_THREAD_DEFAULT_STREAM
// is defined (thrust/system/cuda/detail/util.h); this build does not define it. So the shared
// event clock, recorded on the legacy default stream, brackets exactly the layer's work. The
// default policy also synchronizes the stream before each algorithm returns
// (synchronize_optional() is a cudaStreamSynchronize for every policy but the par_nosync ones):
// the variants whose run() therefore waits say so (run_waits()).
LB_REGISTER_LAYER(Layer{
    .name = LB_THRUST_LAYER,
    .summary = "Thrust on the CUDA backend: device_vector, transform, reduce (CUB underneath)",
    .on_gpu = true,
    .rank = 30,
    .unavailable_reason = [] { return gpu_unavailable_reason(); },
    .make_clock = make_default_stream_event_clock,
    .describe = describe,
});
#else
// The OpenMP backend computes on the calling thread's team: a host clock times it, as for cpu.
LB_REGISTER_LAYER(Layer{
    .name = LB_THRUST_LAYER,
    .summary = "the same Thrust code on the OpenMP backend: host memory, all CPU cores",
    .on_gpu = false,
    .rank = 5,
    .unavailable_reason = [] { return std::string(); },
    .make_clock = make_host_clock,
    .describe = describe,
    // The index-transform matmul does no blocking for the caches: about 2 GFLOP/s per core, so
    // 4096^3 would take minutes. The default sweep stops at 1024^3; --size asks for more.
    .in_default_sweep = [](const Workload& w, const Shape& s) { return !w.takes_matrix_sizes() || s.m * s.n * s.k <= (1LL << 30); },
});
#endif

}  // namespace lb::LB_THRUST_NS
