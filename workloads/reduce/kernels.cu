// reduce device code. No host-only includes: shared by nvcc and NVRTC.
//
// One launch, no atomics on the data: each block adds its grid-stride share of x into one partial
// sum, stores it in `partials`, and counts itself done; the block that counts last adds the
// partials, in block order, and writes the result. The output is therefore written, not
// accumulated into, so it needs no zeroing, and the order of every addition is the same every run.
//
// Why one launch and not two (reduce_partial, then a one-block reduce_final, before P31): the
// second launch waited for the first to drain and then started a kernel of one block, a few
// microseconds that every size paid, a quarter of the time of a 2^20 reduce. The last block does
// that work here, while nothing else runs; its wait was the kernel boundary, now a counter.
// Why LB_REDUCE_UNROLL float4 loads a thread before any add: the loads in flight are what keep
// HBM busy, and a loop that adds each float4 before the next load issues has one in flight a thread.
#include "workloads/launch_config.h"

// Sum over the block: shuffles inside each warp, then the first warp adds the warp sums.
__device__ __forceinline__ float lb_block_sum(float value) {
  __shared__ float warp_sums[LB_BLOCK / 32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  value = threadIdx.x < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
  if (warp == 0)
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;  // valid in thread 0
}

// Float4 j of x's `quads`, and the sum of a float4's four floats: every load and every first add of
// the grid-stride loops below is one of these.
__device__ __forceinline__ float4 lb_quad_at(const float4* __restrict__ x4, long long quads, long long j) {
  return x4[j];
}
__device__ __forceinline__ float lb_quad_sum(const float4& v) { return (v.x + v.y) + (v.z + v.w); }

// How many blocks have stored their partial sum in this launch. Zero when the module loads; the
// last block sets it back to zero, so every launch starts from zero. One counter per module: two
// launches of this kernel from one module must not run at once (each layer launches it on one stream).
__device__ unsigned lb_reduce_blocks_done;

extern "C" __global__ void __launch_bounds__(LB_BLOCK)
reduce_sum(const float* __restrict__ x, long long n, float* __restrict__ partials, float* __restrict__ out) {
  constexpr int U = LB_REDUCE_UNROLL;
  const long long quads = n / 4;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float sums[U];
#pragma unroll
  for (int u = 0; u < U; ++u) sums[u] = 0.0f;
  // Float4s i, i + stride, ...: U of them a pass while all U are inside x, all loaded before any is
  // added (no bound check between them, so nothing orders them); then the rest one at a time.
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < quads; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = lb_quad_at(x4, quads, i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) sums[u] += lb_quad_sum(v[u]);
  }
  for (; i < quads; i += stride) sums[0] += lb_quad_sum(lb_quad_at(x4, quads, i));
  const long long tail = quads * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (tail < n) sums[0] += x[tail];
  float sum = 0.0f;
#pragma unroll
  for (int u = 0; u < U; ++u) sum += sums[u];
  sum = lb_block_sum(sum);

  __shared__ bool last;  // this block counted last
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();  // the partial is visible GPU-wide before the count says so
    last = atomicAdd(&lb_reduce_blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();  // also: every thread is done with lb_block_sum's shared array
  if (!last) return;
  float total = 0.0f;
  for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x)
    total += __ldcg(partials + b);  // from L2: other SMs wrote them, and this SM's L1 may be stale
  total = lb_block_sum(total);
  if (threadIdx.x == 0) {
    out[0] = total;
    lb_reduce_blocks_done = 0;  // nobody counts any more in this launch
  }
}
