// Row-wise softmax, one block of 256 threads per row: y = exp(x - max) / sum(exp(x - max)).
//
// The lesson: a reduction along rows is two reductions (the max, then the sum of exponentials)
// followed by an element-wise pass. Subtracting the row's max first keeps exp() from overflowing
// (softmax is unchanged by a shift). Each reduction here is a block reduction: every thread folds
// its strided share of the row into one value, then a warp shuffle folds 32 values into one and a
// small shared array joins the warps. Three passes read the row three times; for rows that fit in
// the L1/L2 the second and third come from cache, so DRAM sees the row once and the kernel is
// memory-bound (8 bytes per element). An "online softmax" (max and sum in one pass) saves a pass.
#define BLOCK 256
// -infinity without <cmath> (NVRTC compiles this text with no host headers).
#define NEG_INF (-__int_as_float(0x7f800000))

__device__ float block_reduce(float v, bool is_max, float* shared) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_down_sync(0xffffffffu, v, offset);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / 32 ? shared[lane] : (is_max ? NEG_INF : 0.0f);
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_down_sync(0xffffffffu, v, offset);
      v = is_max ? fmaxf(v, other) : v + other;
    }
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  const float result = shared[0];
  __syncthreads();  // shared is reused by the next reduction
  return result;
}

extern "C" __global__ void __launch_bounds__(BLOCK) row_softmax(const float* __restrict__ x, float* __restrict__ y,
                                                                long long m, long long n) {
  __shared__ float shared[BLOCK / 32];
  const long long row = blockIdx.x;
  if (row >= m) return;
  const float* in = x + row * n;
  float* out = y + row * n;
  float top = NEG_INF;
  for (long long c = threadIdx.x; c < n; c += BLOCK) top = fmaxf(top, in[c]);
  top = block_reduce(top, true, shared);
  float sum = 0.0f;
  for (long long c = threadIdx.x; c < n; c += BLOCK) sum += __expf(in[c] - top);
  sum = block_reduce(sum, false, shared);
  const float inverse = 1.0f / sum;
  for (long long c = threadIdx.x; c < n; c += BLOCK) out[c] = __expf(in[c] - top) * inverse;
}
