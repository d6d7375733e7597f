// Rung 7 — Multiple elements per thread.
// Changes against rung 6: the grid no longer grows with n. The launch caps it at 8 blocks per SM
// (max_blocks_per_sm = 8: 8 x 256 = 2048 threads, a full H100 SM), and each thread walks x in a
// grid-stride loop, two loads (kBlock apart) per step, adding into a register; the block's tree of
// rung 6 then runs once per block instead of once per 512 elements.
// Why it is faster: the tree, the __syncthreads() and the partial sum cost the same per block but
// now cover ~n / (8 x SMs) elements each instead of 512; most of a thread's time goes to loads, and
// with a resident grid there is no block launch and retirement per 512 elements. It is also
// Brent's theorem at work: O(n/p) sequential work per thread plus an O(log p) tree.
// (Harris accumulates into sdata[tid] inside the loop; a register is cheaper and does the same.)
// Follows: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), kernel 7.

namespace reduce_07 {

constexpr unsigned kBlock = 256;

template <unsigned kThreads>
__device__ __forceinline__ float block_reduce(float* sdata, unsigned tid) {
  static_assert(kThreads >= 64 && kThreads <= 1024 && (kThreads & (kThreads - 1)) == 0, "a power of two, 64..1024");
  if constexpr (kThreads >= 1024) { if (tid < 512) sdata[tid] += sdata[tid + 512]; __syncthreads(); }
  if constexpr (kThreads >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
  if constexpr (kThreads >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
  if constexpr (kThreads >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
  float v = 0.0f;
  if (tid < 32) {  // the last warp, __syncwarp()-safe (see rung 5)
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

}  // namespace reduce_07

extern "C" __global__ void __launch_bounds__(reduce_07::kBlock)
reduce_07_multiple_elements_per_thread(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  using reduce_07::kBlock;
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const long long grid_size = 2LL * kBlock * gridDim.x;  // elements one step of the whole grid covers
  float sum = 0.0f;
  for (long long i = (long long)blockIdx.x * (2 * kBlock) + tid; i < n; i += grid_size) {
    sum += x[i];
    if (i + kBlock < n) sum += x[i + kBlock];
  }
  sdata[tid] = sum;
  __syncthreads();
  const float total = reduce_07::block_reduce<kBlock>(sdata, tid);
  if (tid == 0) partials[blockIdx.x] = total;
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_REDUCE_RUNG(7, "multiple_elements_per_thread", "Multiple elements per thread", reduce_07_multiple_elements_per_thread,
               {.block = reduce_07::kBlock, .items_per_thread = 2, .max_blocks_per_sm = 8,
                .smem_bytes = reduce_07::kBlock * 4});
#endif
