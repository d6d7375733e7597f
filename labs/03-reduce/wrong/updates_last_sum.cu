// expect-check: pass
// expect-grade: graded 60 0 0
// expect-feedback: was wrong (its inputs and output were fresh
// Updates its last answer instead of computing it: keeps the last input pointer, n and sum in __device__ variables. Launched on the same pointer and n, it returns the last sum without reading x; on a pointer moved by d < n elements (a window of one pool, as timed samples once were), it adds the d elements that entered and subtracts the d that left; otherwise it sums everything. Every check size has its own n, so it sums everything and passes. The grade draws fresh values into the same buffers before every timed sample, so the pointer never moves while the values all change: the stale sum fails a verified timed sample, and the performance points are lost.
#define BLOCK 256

__device__ const float* last_x;
__device__ long long last_n = -1;
__device__ float last_sum;
__device__ float delta;  // this launch's blocks' sums, added up
__device__ unsigned int blocks_done;

extern "C" __global__ void lab_reduce(const float* x, long long n, float* out) {
  __shared__ float block_sum;
  // Every block reads the state before it counts itself done, and only the last block to count
  // itself done writes it: no block reads a state that this launch changed.
  const float* old_x = last_x;
  const bool same_n = last_n == n;
  const long long d = x - old_x;  // how far the pointer moved, in elements
  if (same_n && d == 0) {         // "nothing moved": the last answer
    if (blockIdx.x == 0 && threadIdx.x == 0) *out = last_sum;
    return;
  }
  const bool slide = same_n && d > 0 && d < n;  // only a window moved forward: d in, d out
  if (threadIdx.x == 0) block_sum = 0.0f;
  __syncthreads();
  float sum = 0.0f;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (slide) {
    for (long long i = first; i < d; i += stride) sum += x[n - d + i] - old_x[i];
  } else {
    for (long long i = first; i < n; i += stride) sum += x[i];
  }
  atomicAdd(&block_sum, sum);
  __syncthreads();
  if (threadIdx.x != 0) return;
  atomicAdd(&delta, block_sum);
  __threadfence();
  if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {  // the last block: the answer, and the state
    const float total = (slide ? last_sum : 0.0f) + atomicAdd(&delta, 0.0f);
    *out = total;
    last_sum = total;
    last_x = x;
    last_n = n;
    delta = 0.0f;
    blocks_done = 0;
  }
}
