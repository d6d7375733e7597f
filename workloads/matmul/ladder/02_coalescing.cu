// Rung 2 — Global-memory coalescing. Changes against rung 1: threadIdx.x now runs along C's
// *columns* (one line swapped).
// Why it is faster: a warp's 32 threads now share one row of A (a broadcast: one transaction) and
// read 32 adjacent floats of a row of B (128 contiguous bytes: one coalesced transaction instead
// of 32), and they write 32 adjacent floats of C. Same arithmetic, several times the speed.
// Follows: Simon Boehm's SGEMM_CUDA kernel 2 (siboehm.com/articles/22/CUDA-MMM).

extern "C" __global__ void matmul_02_coalescing(const float* __restrict__ A,
                                                const float* __restrict__ B, float* __restrict__ C,
                                                int M, int N, int K) {
  const int row = blockIdx.y * 32 + threadIdx.y;
  const int col = blockIdx.x * 32 + threadIdx.x;  // x along columns: neighbours read adjacent floats
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
  C[(long long)row * N + col] = acc;
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(2, "coalescing", "Global-memory coalescing", matmul_02_coalescing,
               {.block_x = 32, .block_y = 32, .tile_m = 32, .tile_n = 32, .smem_bytes = 0});
#endif
