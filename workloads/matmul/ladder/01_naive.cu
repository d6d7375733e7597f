// Rung 1 — Naive. One thread computes one element of C: a dot product of a row of A and a column
// of B, both read straight from global memory.
// The deliberate flaw: threadIdx.x runs along C's *rows*, so the 32 threads of a warp read 32
// different rows of A (addresses K floats apart: 32 separate memory transactions per load) and
// write 32 different rows of C. B's element is the same for the whole warp (a broadcast).
// Follows: Simon Boehm's SGEMM_CUDA kernel 1 (siboehm.com/articles/22/CUDA-MMM).

extern "C" __global__ void matmul_01_naive(const float* __restrict__ A, const float* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K) {
  const int row = blockIdx.y * 32 + threadIdx.x;  // x along rows: neighbouring threads, rows K apart
  const int col = blockIdx.x * 32 + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(A[(long long)row * K + k], B[(long long)k * N + col], acc);
  C[(long long)row * N + col] = acc;
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(1, "naive", "Naive", matmul_01_naive,
               {.block_x = 32, .block_y = 32, .tile_m = 32, .tile_n = 32, .smem_bytes = 0});
#endif
