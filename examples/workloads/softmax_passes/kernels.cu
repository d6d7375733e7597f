// Row-wise softmax as a sequence of three kernels (workload.json's "kernels", launched in order on
// one stream and timed together as one case): the row's max, then the sum of exp(x - max), then
// y = exp(x - max) / sum. Each pass hands the next its row statistics through device memory
// (row_max, row_sum: outputs of their own, checked too: max is the log-sum-exp's shift, sum its
// scale). The lesson against examples/workloads/row_softmax (one kernel, the row read three times
// by one block, from cache): here each pass reads x from DRAM again when x is larger than the L2,
// so the sequence moves about 3 reads of x where one kernel moves one. The GB/s figure still
// divides the workload's own minimum (x read once, y and the statistics written once), so the
// extra passes show as a lower figure, not as more bytes. The normalise pass is element-wise: a 2D
// grid of one row by 256 columns per block, rows along x (a grid's y stops at 65535 blocks; the
// default 65536 x 1024 has 65536 rows).
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
  return shared[0];
}

extern "C" __global__ void __launch_bounds__(BLOCK) row_max_pass(const float* __restrict__ x, float* __restrict__ row_max,
                                                                 long long m, long long n) {
  __shared__ float shared[BLOCK / 32];
  const long long row = blockIdx.x;
  if (row >= m) return;
  float top = NEG_INF;
  for (long long c = threadIdx.x; c < n; c += BLOCK) top = fmaxf(top, x[row * n + c]);
  top = block_reduce(top, true, shared);
  if (threadIdx.x == 0) row_max[row] = top;
}

extern "C" __global__ void __launch_bounds__(BLOCK) row_sum_pass(const float* __restrict__ x, const float* __restrict__ row_max,
                                                                 float* __restrict__ row_sum, long long m, long long n) {
  __shared__ float shared[BLOCK / 32];
  const long long row = blockIdx.x;
  if (row >= m) return;
  const float top = row_max[row];
  float sum = 0.0f;
  for (long long c = threadIdx.x; c < n; c += BLOCK) sum += __expf(x[row * n + c] - top);
  sum = block_reduce(sum, false, shared);
  if (threadIdx.x == 0) row_sum[row] = sum;
}

extern "C" __global__ void normalise_pass(const float* __restrict__ x, const float* __restrict__ row_max,
                                          const float* __restrict__ row_sum, float* __restrict__ y, long long m, long long n) {
  const long long row = blockIdx.x, c = (long long)blockIdx.y * blockDim.x + threadIdx.x;
  if (row >= m || c >= n) return;
  y[row * n + c] = __expf(x[row * n + c] - row_max[row]) / row_sum[row];
}
