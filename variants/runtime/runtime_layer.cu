// Registers the runtime layer; its variants are the other files of this folder.
#include <string>

#include "variants/runtime/runtime_layer.h"
#include <nlohmann/json.hpp>

namespace lb::runtime {

LB_REGISTER_LAYER(Layer{
    .name = "runtime",
    .summary = "CUDA runtime API: cudaMalloc, cudaMemcpyAsync, <<<>>> launches (kernels built by nvcc)",
    .on_gpu = true,
    .rank = 10,
    .unavailable_reason = gpu_unavailable_reason,
    .describe = [] { return nlohmann::json{{"compiler", "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." +
                                                             std::to_string(__CUDACC_VER_MINOR__)}}; },
    .open_session = open_session,
    .runs_rungs = true,
    .folder_variant = folder_variant,
});

}  // namespace lb::runtime
