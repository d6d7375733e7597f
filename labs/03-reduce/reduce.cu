// Lab 3: sum reduction, *out = x[0] + x[1] + ... + x[n-1].
//
// You write device code only. The runner launches 256-thread blocks, a grid sized to the GPU
// (4 blocks per SM, fewer for a small n), and sets *out to 0 before the launch. Every block adds
// its own share and then adds its total to *out with ONE atomicAdd. As given, the kernel adds
// nothing, *out stays 0, and the check fails.

#define BLOCK 256  // the runner launches exactly this many threads per block

extern "C" __global__ void lab_reduce(const float* x, long long n, float* out) {
  __shared__ float partial[BLOCK];
  const int t = threadIdx.x;
  float sum = 0.0f;

  //@@ 1. Grid-stride loop: starting at this thread's global index (a long long), add every
  //@@    x[i] with i < n to sum, stepping by gridDim.x * blockDim.x.

  //@@ 2. Store sum in partial[t], then wait for the whole block: __syncthreads().

  //@@ 3. Tree in shared memory: for s = BLOCK / 2 down to 64 (halving), threads t < s add
  //@@    partial[t + s] to partial[t]; __syncthreads() after each step (every thread must reach it).

  //@@ 4. Warp 0 (t < 32) finishes alone: v = partial[t] + partial[t + 32], then for
  //@@    offset = 16, 8, 4, 2, 1: v += __shfl_down_sync(0xffffffff, v, offset).

  //@@ 5. Thread 0 now holds the block's total: atomicAdd(out, v). One atomic per block.
}
