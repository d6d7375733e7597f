// The Python layers: one registration line each. A layer is the folder of its variant files,
// variants/<layer>/<workload>.py; what it imports is a one-time cost, and where an import fails
// the layer is unavailable with the import's error.
#include "variants/python/python_layer.h"

namespace lb {
namespace {
// Measured on an H100 (driver 580, CUDA 13; docs/methodology.md): after many event waits
// between two streams of a context, a graph replay in that context runs each of its kernels
// 23% slower, on every stream, until the process ends; destroying the streams and events does not
// undo it. PyCUDA cannot launch on the harness's stream, so each run() makes two such waits.
constexpr const char* kCrossStreamWaits =
    "its stream bridge (two cross-stream event waits per run) slows every later CUDA graph replay in the context";
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
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "numba", .summary = "Numba: kernels written in Python with @cuda.jit, JIT-compiled at the first call",
                                     .on_gpu = true, .rank = 44, .dir = "variants/numba", .modules = {"numba.cuda"},
                                     .libraries_from = "lb_numba"});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "numba-vectorize", .summary = "Numba's @vectorize(target='cuda') ufuncs and @cuda.reduce",
                                     .on_gpu = true, .rank = 45, .dir = "variants/numba-vectorize", .modules = {"numba.cuda"},
                                     .libraries_from = "lb_numba",
                                     .not_provided = {{"matmul", "a ufunc maps elements to elements: a matrix product has no @vectorize form"},
                                                       {"transpose", "a ufunc maps each element to the element at the same index: "
                                                                     "a transpose moves elements to other indices, which @vectorize cannot say"}}});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "pycuda", .summary = "PyCUDA: SourceModule of our kernel text, on the primary context",
                                     .on_gpu = true, .rank = 46, .dir = "variants/pycuda",
                                     .modules = {"pycuda.driver", "pycuda.compiler"}, .libraries_from = "_pycuda_layer",
                                     .changes_context = kCrossStreamWaits});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "cuda-compute", .summary = "cuda.compute (cuda-cccl): CUB's parallel algorithms from Python",
                                     .on_gpu = true, .rank = 47, .dir = "variants/cuda-compute", .modules = {"cuda.compute"},
                                     .libraries_from = "_cuda_compute_layer",
                                     .not_provided = {{"matmul", "cuda.compute has no matrix product (its algorithms are CUB's: transform, reduce, scan, sort, ...)"},
                                                       {"transpose", "no transpose algorithm: it would be a strided gather (a PermutationIterator "
                                                                     "over A), Thrust's form, which the thrust layer measures"}}});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "cython", .summary = "Cython: an extension module calling our runtime-API kernels through C++ launchers",
                                     .on_gpu = true, .rank = 48, .dir = "variants/cython", .modules = {"lb_cython"},
                                     .libraries_from = "_cython_layer"});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "torch", .summary = "PyTorch as most users write it: torch.add(out=), y.add_(x, alpha=), torch.sum, torch.mm (no TF32), a.t() copied",
                                     .on_gpu = true, .rank = 49, .dir = "variants/torch", .modules = {"torch"},
                                     .libraries_from = "lb_torch"});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "torch-compile", .summary = "The torch layer's functions under torch.compile: Dynamo, Inductor's generated Triton kernels",
                                     .on_gpu = true, .rank = 50, .dir = "variants/torch-compile", .modules = {"torch"},
                                     .libraries_from = "lb_torch"});
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "triton", .summary = "Triton: our kernels written with @triton.jit, matmul autotuned, on PyTorch's stream",
                                     .on_gpu = true, .rank = 51, .dir = "variants/triton", .modules = {"torch", "triton"},
                                     .libraries_from = "_triton_layer"});
// XLA enqueues on streams of its own and takes none of ours: timed by the host clock (Layer::timing).
LB_REGISTER_PYTHON_LAYER(PythonLayer{.name = "jax", .summary = "JAX: jax.jit functions of jax.numpy, Precision.HIGHEST for matmul; timed by the host clock",
                                     .on_gpu = true, .rank = 52, .dir = "variants/jax", .modules = {"jax"},
                                     .libraries_from = "_jax_layer", .timing = LayerClock::kHostClock});
}  // namespace
}  // namespace lb
