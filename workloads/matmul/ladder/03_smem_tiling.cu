// Rung 3 — Shared-memory tiling. Changes against rung 2: the block (32x32 threads, a 32x32 tile
// of C) walks K in 32-wide slices; for each slice it first copies a 32x32 tile of A and one of B
// into shared memory (one coalesced load per thread each, zero past the matrix edges), then every
// thread does its 32 multiply-adds from shared memory.
// Why it is faster: each element fetched from global memory is now used by 32 threads instead of
// one, so global (L2/DRAM) traffic drops 32x; the inner loop reads fast on-chip shared memory.
// Follows: Simon Boehm's SGEMM_CUDA kernel 3 (siboehm.com/articles/22/CUDA-MMM); the CUDA C
// Programming Guide's shared-memory matrix multiplication.

namespace matmul_03 {
constexpr int TILE = 32;
}

extern "C" __global__ void matmul_03_smem_tiling(const float* __restrict__ A,
                                                 const float* __restrict__ B, float* __restrict__ C,
                                                 int M, int N, int K) {
  using namespace matmul_03;
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    // Stage one tile of each operand; elements past an edge are 0 so they add nothing.
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();  // everyone is done with the tiles before they are overwritten
  }
  if (row < M && col < N) C[(long long)row * N + col] = acc;
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(3, "smem_tiling", "Shared-memory tiling", matmul_03_smem_tiling,
               {.block_x = 32, .block_y = 32, .tile_m = 32, .tile_n = 32, .smem_bytes = 0});
#endif
