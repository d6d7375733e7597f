// Rung 1 — Interleaved addressing, divergent branch.
// Changes against rung 0: this is the first rung. Each block copies its 256 elements into shared
// memory (one per thread; 0 past the end of x) and adds them in a tree: at step s, every thread
// whose index is a multiple of 2s adds the element s to its right.
// Why it is slow (what the next rungs fix): `tid % (2*s) == 0` picks threads scattered over every
// warp, so at each step every warp is active but most of its lanes idle (divergence), and the
// modulo is an expensive integer operation. Half the threads also sit idle from the first step.
// Follows: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernel 1.

namespace reduce_01 {}  // this rung needs no helpers

extern "C" __global__ void __launch_bounds__(256)
reduce_01_interleaved_divergent(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? x[i] : 0.0f;  // past the end of x, the sum's neutral element
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_REDUCE_RUNG(1, "interleaved_divergent", "Interleaved addressing, divergent branch", reduce_01_interleaved_divergent,
               {.block = 256, .items_per_thread = 1, .max_blocks_per_sm = 0, .smem_bytes = 256 * 4});
#endif
