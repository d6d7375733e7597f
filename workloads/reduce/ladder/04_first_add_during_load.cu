// Rung 4 — First add during load.
// Changes against rung 3: each block covers twice as many elements (items_per_thread = 2, so half
// as many blocks): every thread loads two elements, blockDim apart, and stores their sum to shared
// memory. The tree that follows is rung 3's.
// Why it is faster: no thread is idle during the first addition any more, and half as many blocks
// means half as many trees, __syncthreads() and partial sums for the same data.
// Follows: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernel 4.

namespace reduce_04 {}  // this rung needs no helpers

extern "C" __global__ void __launch_bounds__(256)
reduce_04_first_add_during_load(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * (2 * blockDim.x) + tid;
  float sum = i < n ? x[i] : 0.0f;
  if (i + blockDim.x < n) sum += x[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_REDUCE_RUNG(4, "first_add_during_load", "First add during load", reduce_04_first_add_during_load,
               {.block = 256, .items_per_thread = 2, .max_blocks_per_sm = 0, .smem_bytes = 256 * 4});
#endif
