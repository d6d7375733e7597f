// Rung 3 — Sequential addressing.
// Changes against rung 2: the tree is turned around. At each step the first s threads add the
// element s places to their right, with s halving from blockDim/2 down to 1: thread t adds
// sdata[t + s] into sdata[t].
// Why it is faster: the 32 lanes of a warp read and write 32 consecutive floats, one per bank, so
// the shared-memory bank conflicts of rung 2 are gone; the active threads stay contiguous.
// What it costs (what rung 4 fixes): half the threads do nothing but load, from the very first
// step of the tree.
// Follows: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernel 3.

namespace reduce_03 {}  // this rung needs no helpers

extern "C" __global__ void __launch_bounds__(256)
reduce_03_sequential_addressing(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_REDUCE_RUNG(3, "sequential_addressing", "Sequential addressing", reduce_03_sequential_addressing,
               {.block = 256, .items_per_thread = 1, .max_blocks_per_sm = 0, .smem_bytes = 256 * 4});
#endif
