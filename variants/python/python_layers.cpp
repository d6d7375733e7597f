// The Python layers: one registration line each. A layer is the folder of its variant files,
// variants/<layer>/<workload>.py; what it imports is a one-time cost, and where an import fails
// the layer is unavailable with the import's error.
#include "variants/python/python_layer.h"

namespace lb {
namespace {
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "cupy", .summary = "CuPy as most users write it: cp.add, an ElementwiseKernel, cp.sum, cp.matmul",
                                     .on_gpu = true, .rank = 40, .dir = "variants/cupy", .modules = {"cupy"},
                                     .libraries_from = "lb_cupy"});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "cupy-raw", .summary = "CuPy's RawModule of our kernel text, our launch shapes",
                                     .on_gpu = true, .rank = 41, .dir = "variants/cupy-raw", .modules = {"cupy"},
                                     .libraries_from = "lb_cupy"});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "cuda-bindings", .summary = "cuda.bindings: NVRTC and the driver API from Python, our kernel text",
                                     .on_gpu = true, .rank = 42, .dir = "variants/cuda-bindings",
                                     .modules = {"cuda.bindings.driver", "cuda.bindings.nvrtc"},
                                     .libraries_from = "_cuda_bindings_layer"});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "cuda-core", .summary = "cuda.core: Program, ObjectCode, launch() from Python, our kernel text",
                                     .on_gpu = true, .rank = 43, .dir = "variants/cuda-core", .modules = {"cuda.core"},
                                     .libraries_from = "_cuda_core_layer"});
}  // namespace
}  // namespace lb
