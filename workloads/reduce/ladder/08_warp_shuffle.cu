// Rung 8 — Warp shuffles.
// Changes against rung 7: the block's sum no longer goes through a shared-memory tree. Each warp
// adds its 32 values with __shfl_down_sync (lane i reads lane i + offset's register, offsets 16, 8,
// 4, 2, 1); lane 0 of each warp writes one float to shared memory (8 for a 256-thread block); one
// __syncthreads(); warp 0 adds those 8 with shuffles again. The grid-stride loading is rung 7's.
// Why it is faster: a shuffle moves a register between lanes in one instruction, with no shared
// memory store/load pair, no bank traffic and no __syncwarp() per step; the block needs 1
// __syncthreads() instead of 4 and 32 bytes of shared memory instead of 1 KiB. It is also safe on
// Volta+ by construction: the _sync shuffles name the lanes that take part.
// Follows: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernel 7, with the
// block sum of Justin Luitjens, "Faster Parallel Reductions on Kepler" (NVIDIA developer blog,
// 2014), in its CUDA 9 __shfl_down_sync form; CUB's BlockReduce (BLOCK_REDUCE_WARP_REDUCTIONS)
// works the same way.

namespace reduce_08 {

constexpr unsigned kBlock = 256;
constexpr unsigned kWarps = kBlock / 32;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;  // lane 0 holds the warp's sum
}

// The block's sum, valid in thread 0. Every thread of the block must call it.
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float warp_sums[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < kWarps ? warp_sums[lane] : 0.0f);
  return v;
}

}  // namespace reduce_08

extern "C" __global__ void __launch_bounds__(reduce_08::kBlock)
reduce_08_warp_shuffle(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  using reduce_08::kBlock;
  const unsigned tid = threadIdx.x;
  const long long grid_size = 2LL * kBlock * gridDim.x;
  float sum = 0.0f;
  for (long long i = (long long)blockIdx.x * (2 * kBlock) + tid; i < n; i += grid_size) {
    sum += x[i];
    if (i + kBlock < n) sum += x[i + kBlock];
  }
  const float total = reduce_08::block_sum(sum);
  if (tid == 0) partials[blockIdx.x] = total;
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_REDUCE_RUNG(8, "warp_shuffle", "Warp shuffles", reduce_08_warp_shuffle,
               {.block = reduce_08::kBlock, .items_per_thread = 2, .max_blocks_per_sm = 8, .smem_bytes = 0});
#endif
