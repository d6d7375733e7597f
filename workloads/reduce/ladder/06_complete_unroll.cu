// Rung 6 — Completely unrolled.
// Changes against rung 5: the block size is a compile-time constant (Harris makes it a template
// parameter and picks the instance with a switch on the launch's block size; here the rung's launch
// shape fixes it, so one constexpr kBlock = 256 is enough, and the block sum is a template any block
// size could instantiate). Every step of the tree is written out under `if constexpr`, so the
// compiler removes the steps a block of that size does not need, and the loop counter and its
// tests disappear.
// Why it is faster: no loop overhead at all in the tree; the `tid < s` bounds are constants.
// Follows: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernel 6. The last
// warp is rung 5's __syncwarp()-safe form, not Harris's `volatile` lockstep code (unsafe since
// Volta: see rung 5).

namespace reduce_06 {

constexpr unsigned kBlock = 256;

// The block's sum, left in lane 0 of warp 0. kBlock is a power of two, 64 to 1024.
template <unsigned kThreads>
__device__ __forceinline__ float block_reduce(float* sdata, unsigned tid) {
  static_assert(kThreads >= 64 && kThreads <= 1024 && (kThreads & (kThreads - 1)) == 0, "a power of two, 64..1024");
  if constexpr (kThreads >= 1024) { if (tid < 512) sdata[tid] += sdata[tid + 512]; __syncthreads(); }
  if constexpr (kThreads >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
  if constexpr (kThreads >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
  if constexpr (kThreads >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
  float v = 0.0f;
  if (tid < 32) {
    v = sdata[tid];
    v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 1];
  }
  return v;
}

}  // namespace reduce_06

extern "C" __global__ void __launch_bounds__(reduce_06::kBlock)
reduce_06_complete_unroll(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  using reduce_06::kBlock;
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * (2 * kBlock) + tid;
  float sum = i < n ? x[i] : 0.0f;
  if (i + kBlock < n) sum += x[i + kBlock];
  sdata[tid] = sum;
  __syncthreads();
  const float total = reduce_06::block_reduce<kBlock>(sdata, tid);
  if (tid == 0) partials[blockIdx.x] = total;
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_REDUCE_RUNG(6, "complete_unroll", "Completely unrolled", reduce_06_complete_unroll,
               {.block = reduce_06::kBlock, .items_per_thread = 2, .max_blocks_per_sm = 0,
                .smem_bytes = reduce_06::kBlock * 4});
#endif
