// The kind of each one-time cost, read from the layer's own name for it (variants/one_time_cost.h):
// every name the layers use today, as a results file from a full suite holds them.
#include <gtest/gtest.h>

#include "variants/one_time_cost.h"
#include <nlohmann/json.hpp>

namespace lb {
namespace {

TEST(OneTimeCost, EveryNameTheLayersUseGetsItsKind) {
  const std::vector<std::pair<std::string, CostKind>> names = {
      {"Python interpreter start, once per process (python3)", CostKind::kImport},
      {"import cupy, once per process", CostKind::kImport},
      {"import cuda.bindings.driver, once per process", CostKind::kImport},
      {"import pycuda.compiler, once per process", CostKind::kImport},
      {"primary context retain (the context already existed)", CostKind::kContext},
      {"NVRTC vector_add (compiled)", CostKind::kCompile},
      {"NVRTC matmul (cuda.bindings.nvrtc, compiled)", CostKind::kCompile},
      {"Program.compile reduce (cuda.core, NVRTC, compiled)", CostKind::kCompile},
      {"cp.RawModule saxpy: NVRTC compile (or CuPy cache) + load", CostKind::kCompile},
      {"SourceModule launch (nvcc + PyCUDA's cache, compiled; with the module load)", CostKind::kCompile},
      {"numba.cuda.jit matmul (first use of its signature: compiled, module load included)", CostKind::kCompile},
      {"numba @vectorize add: compile the scalar function (no disk cache)", CostKind::kCompile},
      {"numba @cuda.reduce add: first call, compiles its kernel for these argument types (no disk cache)",
       CostKind::kCompile},
      {"cuda.compute build reduce_into OpKind.PLUS (NVRTC + nvJitLink, built)", CostKind::kCompile},
      {"cuda.compute build binary_transform add (Numba op + NVRTC + nvJitLink, in-process cache)", CostKind::kCompile},
      {"cuModuleLoadData vector_add", CostKind::kLoad},
      {"module load matmul", CostKind::kLoad},
      {"capture + instantiate 1000 launches", CostKind::kSetup},
      {"CUB temp storage for reduce_into: size query + allocation (16127 bytes)", CostKind::kSetup},
      {"PyTorch CUDA start (torch.cuda.init: primary context retained), once per process", CostKind::kContext},
      {"torch.compile vector_add (1024 1024 1024): first call, cold caches (Dynamo trace, Inductor, Triton compile)",
       CostKind::kCompile},
      {"triton.jit vector_add_kernel first launch at 1x1024x1: compile, cold cache", CostKind::kCompile},
      {"triton autotune matmul_kernel at 512x512x512: 12 configurations compiled (cold cache at the first shape) and "
       "timed; best BLOCK_M: 128",
       CostKind::kAutotune},
      {"JAX GPU client start (XLA: the primary context retained, its streams, allocator)", CostKind::kContext},
      {"jax.jit matmul at 512x512x512: first call, cold cache (trace, lower, XLA compile)", CostKind::kCompile},
  };
  for (const auto& [name, kind] : names) EXPECT_STREQ(to_string(cost_kind(name)), to_string(kind)) << name;
}

TEST(OneTimeCost, TheLogRecordsTheKind) {
  CostLog log;
  log.add("cuModuleLoadData reduce", 1.5);
  EXPECT_EQ(log.to_json(), nlohmann::json::parse(R"([{"what": "cuModuleLoadData reduce", "ms": 1.5, "kind": "load"}])"));
}

}  // namespace
}  // namespace lb
