// Rung 5 — 2-D blocktiling. Changes against rung 4: each thread computes an 8x8 sub-tile of C
// (TM x TN) as an outer product. A block of 256 threads owns a 128x128 tile of C and walks K in
// slices of 8 (each thread stages 4 elements of each slice). For every k a thread loads 8 values
// of A and 8 of B into registers and does 64 FMAs with them.
// Why it is faster: 16 shared-memory loads feed 64 FMAs (rung 4: 9 loads for 8 FMAs), so the
// arithmetic, not shared memory, starts to set the pace; the bigger 128x128 tile also halves
// global traffic per FLOP again. The cost is registers: 64 accumulators per thread.
// Follows: Simon Boehm's SGEMM_CUDA kernel 5 (siboehm.com/articles/22/CUDA-MMM).

namespace matmul_05 {
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);  // 256
constexpr int LOADS = BM * BK / THREADS;        // 4 elements of each slice per thread
static_assert(BM * BK == BK * BN, "A's and B's slices are the same size");
}  // namespace matmul_05

extern "C" __global__ void __launch_bounds__(matmul_05::THREADS)
matmul_05_blocktiling_2d(const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C, int M, int N, int K) {
  using namespace matmul_05;
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int trow = tid / (BN / TN);  // this thread's 8 rows: trow*8 ..
  const int tcol = tid % (BN / TN);  // ... and 8 columns: tcol*8 ..

  float acc[TM][TN] = {};
  float a[TM], b[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int l = 0; l < LOADS; ++l) {
      const int e = tid + l * THREADS;  // consecutive threads, consecutive addresses
      const int ar = e / BK, ac = e % BK;
      As[ar][ac] = (row0 + ar < M && k0 + ac < K) ? A[(long long)(row0 + ar) * K + k0 + ac] : 0.0f;
      const int br = e / BN, bc = e % BN;
      Bs[br][bc] = (k0 + br < K && col0 + bc < N) ? B[(long long)(k0 + br) * N + col0 + bc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[trow * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tcol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);  // outer product
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + trow * TM + i;
    if (row >= M) break;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = col0 + tcol * TN + j;
      if (col < N) C[(long long)row * N + col] = acc[i][j];
    }
  }
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(5, "blocktiling_2d", "2-D blocktiling", matmul_05_blocktiling_2d,
               {.block_x = 256, .block_y = 1, .tile_m = 128, .tile_n = 128, .smem_bytes = 0});
#endif
