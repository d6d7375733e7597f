// expect-check: pass
// expect-grade: graded 60 0 0
// expect-feedback: was wrong (its inputs and output were fresh
// Reuses its previous answer: keeps each result in a __device__ buffer of its own, keyed by the buffers' addresses and n, and on a launch with the same ones copies the cached y instead of computing it. Every check size is a new problem in new buffers, so it passes. The grade draws each timed sample's problem afresh on the host (the folder's own draw, from the grade's secret seed and the sample's index) and uploads it into the same buffers: the addresses match, the cache answers the problem of the run before, and the verified last sample fails, taking the performance points.
#define CACHE (1 << 24)
__device__ float cache[CACHE];
__device__ const float* cached_x;
__device__ const float* cached_w;
__device__ long long cached_n = -1;
__device__ unsigned int blocks_done;

extern "C" __global__ void stencil5(const float* x, const float* w, float* y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool hit = cached_x == x && cached_w == w && cached_n == n;
  if (i < n) {
    if (hit) {
      y[i] = cache[i];
    } else {
      float sum = 0.0f;
      for (int j = 0; j < 5; ++j) sum = fmaf(w[j], x[i + j], sum);
      y[i] = sum;
      if (n <= CACHE) cache[i] = sum;
    }
  }
  // The last block to finish records what the cache now holds, for the next launch.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
      if (!hit && n <= CACHE) {
        cached_x = x;
        cached_w = w;
        cached_n = n;
      }
      blocks_done = 0;
    }
  }
}
