// Rung 5 — Unroll the last warp.
// Changes against rung 4: the tree loop stops when 32 threads are left (s > 32); the last six
// steps (64 -> 32 -> ... -> 1 element) are written out for the first warp alone, with no
// __syncthreads() and no loop.
// Why it is faster: below 32 active threads, the loop's __syncthreads(), its `tid < s` test and its
// counter are pure overhead: only one warp still works, and a warp needs at most a __syncwarp().
//
// Safety on Volta and newer: Harris's kernel 5 drops all synchronisation in the last warp and
// relies on `volatile` shared memory and the lanes of a warp running in lockstep. Since Volta
// (independent thread scheduling) lanes are not guaranteed to run in lockstep, so lane t may read
// sdata[t + 16] before lane t + 16 has written its previous step: that code is a data race and can
// give wrong sums. This rung writes the safe form from "Using CUDA Warp-Level Primitives" (NVIDIA
// developer blog, 2018): each step reads into a register, __syncwarp(), writes, __syncwarp(). The
// __syncwarp() both orders the lanes and makes their shared-memory writes visible to each other,
// so no `volatile` is needed. (Rung 8 replaces this with warp shuffles.)
// Follows: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernel 5.

namespace reduce_05 {

// The last 64 -> 1 steps, by the 32 lanes of warp 0 (all 32 must call it). The block must have at
// least 64 threads: sdata[0, 64) holds the values left after the loop.
__device__ __forceinline__ float warp_reduce(float* sdata, unsigned tid) {
  float v = sdata[tid];
  for (unsigned s = 32; s > 0; s >>= 1) {  // fully unrolled by the compiler: a constant trip count
    v += sdata[tid + s];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
  }
  return v;  // lane 0 holds the block's sum
}

}  // namespace reduce_05

extern "C" __global__ void __launch_bounds__(256)
reduce_05_unroll_last_warp(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * (2 * blockDim.x) + tid;
  float sum = i < n ? x[i] : 0.0f;
  if (i + blockDim.x < n) sum += x[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    const float total = reduce_05::warp_reduce(sdata, tid);
    if (tid == 0) partials[blockIdx.x] = total;
  }
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_REDUCE_RUNG(5, "unroll_last_warp", "Unroll the last warp", reduce_05_unroll_last_warp,
               {.block = 256, .items_per_thread = 2, .max_blocks_per_sm = 0, .smem_bytes = 256 * 4});
#endif
