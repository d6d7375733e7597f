// Rung 4 — 1-D blocktiling. Changes against rung 3: each thread computes TM = 8 elements of one
// column of C instead of one. A block of 512 threads owns a 64x64 tile of C and walks K in slices
// of 8: it stages a 64x8 slice of A and an 8x64 slice of B (one element per thread each); then
// for every k a thread reads B's value once into a register and reuses it for its 8 rows.
// Why it is faster: rung 3 did two shared-memory loads per multiply-add; here a thread does 8 FMAs
// for 9 shared-memory loads (1 of B, 8 of A), and 8 independent accumulators give the scheduler
// instruction-level parallelism. Shared memory, not global memory, was rung 3's bottleneck.
// Follows: Simon Boehm's SGEMM_CUDA kernel 4 (siboehm.com/articles/22/CUDA-MMM).

namespace matmul_04 {
constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
constexpr int THREADS = BM * BN / TM;  // 512
static_assert(BM * BK == THREADS && BK * BN == THREADS, "one element of each slice per thread");
}  // namespace matmul_04

extern "C" __global__ void __launch_bounds__(matmul_04::THREADS)
matmul_04_blocktiling_1d(const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C, int M, int N, int K) {
  using namespace matmul_04;
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int tcol = tid % BN;  // this thread's column of the tile
  const int trow = tid / BN;  // ... and its group of TM rows: rows trow*TM .. trow*TM+TM-1
  // Which element of each slice this thread stages (adjacent threads: adjacent addresses).
  const int a_r = tid / BK, a_c = tid % BK;
  const int b_r = tid / BN, b_c = tid % BN;

  float acc[TM] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    As[a_r][a_c] = (row0 + a_r < M && k0 + a_c < K) ? A[(long long)(row0 + a_r) * K + k0 + a_c] : 0.0f;
    Bs[b_r][b_c] = (k0 + b_r < K && col0 + b_c < N) ? B[(long long)(k0 + b_r) * N + col0 + b_c] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k][tcol];  // loaded once, used TM times
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] = fmaf(As[trow * TM + i][k], b, acc[i]);
    }
    __syncthreads();
  }
  const int col = col0 + tcol;
  if (col >= N) return;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + trow * TM + i;
    if (row < M) C[(long long)row * N + col] = acc[i];
  }
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(4, "blocktiling_1d", "1-D blocktiling", matmul_04_blocktiling_1d,
               {.block_x = 512, .block_y = 1, .tile_m = 64, .tile_n = 64, .smem_bytes = 0});
#endif
