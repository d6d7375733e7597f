// Rung 2 — Interleaved addressing, strided index.
// Changes against rung 1: the thread that adds at step s is no longer the one whose index is a
// multiple of 2s; instead thread t works on element index = 2*s*t. The same additions are done,
// but by threads 0, 1, 2, ... packed into the first warps.
// Why it is faster: the active threads are contiguous, so whole warps either work or skip the
// step (no divergence inside a warp until fewer than 32 threads are left), and the modulo is gone.
// What it costs (what rung 3 fixes): the shared-memory addresses 2*s*t are strided, so the lanes of
// a warp hit the same banks: at s = 1 lanes t and t+16 both touch bank (2t mod 32), a 2-way
// conflict, growing with s (a 16-way conflict at s = 8).
// Follows: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernel 2.

namespace reduce_02 {}  // this rung needs no helpers

extern "C" __global__ void __launch_bounds__(256)
reduce_02_interleaved_strided(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_REDUCE_RUNG(2, "interleaved_strided", "Interleaved addressing, strided index", reduce_02_interleaved_strided,
               {.block = 256, .items_per_thread = 1, .max_blocks_per_sm = 0, .smem_bytes = 256 * 4});
#endif
