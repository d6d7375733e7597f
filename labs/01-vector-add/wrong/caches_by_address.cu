// expect-check: pass
// expect-grade: graded 60 0 0
// expect-feedback: was wrong (its inputs and output were fresh
// Answers from a cache: keeps each result in a buffer of its own, keyed by the input addresses and n, and on a launch with the same inputs copies the cached answer (8 bytes an element instead of 12). Every check size is a fresh problem, so it passes; a grader that reran it on the same inputs would time the copy. The grade draws fresh values into the same buffers before every timed sample: the addresses match, the cache answers the last problem, and a verified timed sample fails, taking the performance points.
#define CACHE (1 << 26)
__device__ float cache[CACHE];
__device__ const float* cached_a;
__device__ const float* cached_b;
__device__ long long cached_n = -1;
__device__ unsigned int blocks_done;

extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool hit = cached_a == a && cached_b == b && cached_n == n;
  if (i < n) {
    if (hit) {
      c[i] = cache[i];
    } else {
      const float v = a[i] + b[i];
      c[i] = v;
      if (n <= CACHE) cache[i] = v;
    }
  }
  // The last block to finish records what the cache now holds, for the next launch.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
      if (!hit && n <= CACHE) {
        cached_a = a;
        cached_b = b;
        cached_n = n;
      }
      blocks_done = 0;
    }
  }
}
