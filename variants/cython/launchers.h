// The C++ launchers the cython layer wraps: one function per workload that launches our kernels
// (workloads/<w>/kernels.cu, built by nvcc as for the runtime layer) with the runtime layer's launch
// shapes (variants/gpu_launch.h) on the stream it is given. They are what "existing CUDA C++" looks
// like to Cython: plain functions over device pointers and a stream, which report errors by
// returning a cudaError_t (the launch's, from cudaGetLastError) instead of throwing, because a C++
// exception must not cross into the C code Cython generates. lb_cython.pyx turns a code into a
// Python exception.
//
// Plain C++ declarations (no nvcc needed): the Cython-generated module includes this header.
#pragma once
#include <cuda_runtime_api.h>

extern "C" {

// Blocks of reduce_sum's grid for n floats on the current device (grid_stride_blocks over n/4
// float4s, from its SM count), as the runtime layer sizes it; the partials buffer holds that many.
cudaError_t lb_cython_reduce_blocks(long long n, unsigned* blocks);

cudaError_t lb_cython_vector_add(const float* a, const float* b, float* c, long long n, cudaStream_t stream);
cudaError_t lb_cython_saxpy(float alpha, const float* x, float* y, long long n, cudaStream_t stream);
// reduce_sum over `blocks` blocks (its last block adds their partials) into sum[0].
cudaError_t lb_cython_reduce(const float* x, long long n, float* partials, unsigned blocks, float* sum,
                             cudaStream_t stream);
cudaError_t lb_cython_matmul(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
// B (n x m) = A (m x n) transposed, one LB_TR_TILE-square tile of A per block.
cudaError_t lb_cython_transpose(const float* a, float* b, int m, int n, cudaStream_t stream);
cudaError_t lb_cython_launch_probe(float* out, float value, cudaStream_t stream);

// The file of the CUDA runtime this module's calls go to (dladdr of cudaRuntimeGetVersion): the
// process's one libcudart.so, shared with layerbench. Empty when it cannot be told.
const char* lb_cython_cudart_path();

}  // extern "C"
