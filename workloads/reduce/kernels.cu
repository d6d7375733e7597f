// reduce device code. No host-only includes: shared by nvcc and NVRTC.
//
// Two launches, no atomics: reduce_partial leaves one sum per block in `partials`, then
// reduce_final (one block) adds those and writes the result. The output is therefore written,
// not accumulated into, so it needs no zeroing and the order of additions is the same every run.
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

extern "C" __global__ void __launch_bounds__(LB_BLOCK)
reduce_partial(const float* __restrict__ x, long long n, float* __restrict__ partials) {
  const long long quads = n / 4;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float sum = 0.0f;
  for (long long i = first; i < quads; i += stride) {
    const float4 v = x4[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  const long long tail = quads * 4 + first;
  if (tail < n) sum += x[tail];
  sum = lb_block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

extern "C" __global__ void __launch_bounds__(LB_BLOCK)
reduce_final(const float* __restrict__ partials, int count, float* __restrict__ out) {
  float sum = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) sum += partials[i];
  sum = lb_block_sum(sum);
  if (threadIdx.x == 0) out[0] = sum;
}
