// Rung 6 — Vectorised loads. Changes against rung 5: (1) global loads are float4 (LDG.128): each
// thread fetches 4 adjacent floats of A and 4 of B per slice in one instruction each; (2) A's
// slice is stored *transposed* in shared memory (As[k][m]), so a thread's 8 rows of A for one k
// are 8 adjacent floats; (3) the inner loop reads shared memory as float4 (LDS.128): 4 loads per
// k instead of 16.
// Why it is faster: a quarter of the load instructions for the same bytes, so more issue slots go
// to FMAs. float4 needs 16-byte aligned addresses: rows of A are 16-byte aligned only when K is a
// multiple of 4 (B's: N), so the kernel checks that once and otherwise stages with scalar loads
// (the math is the same either way).
// Follows: Simon Boehm's SGEMM_CUDA kernel 6 (siboehm.com/articles/22/CUDA-MMM).

namespace matmul_06 {
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);  // 256
static_assert(BM * BK == 4 * THREADS && BK * BN == 4 * THREADS, "one float4 of each slice per thread");

__device__ __forceinline__ bool aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}
}  // namespace matmul_06

extern "C" __global__ void __launch_bounds__(matmul_06::THREADS)
matmul_06_vectorized(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C, int M, int N, int K) {
  using namespace matmul_06;
  __shared__ __align__(16) float As[BK][BM];  // transposed: As[k][m]
  __shared__ __align__(16) float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int trow = tid / (BN / TN), tcol = tid % (BN / TN);
  // The float4 this thread stages: A's row a_r, columns a_c..a_c+3; B's row b_r, columns b_c..+3.
  const int a_r = tid / (BK / 4), a_c = (tid % (BK / 4)) * 4;
  const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
  // float4 path only when every row of A and B starts 16-byte aligned (same for all threads).
  const bool vec = (K % 4 == 0) && (N % 4 == 0) && aligned16(A) && aligned16(B);

  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    const int ar = row0 + a_r, ak = k0 + a_c;
    const int bk = k0 + b_r, bc = col0 + b_c;
    float4 av = make_float4(0.f, 0.f, 0.f, 0.f), bv = av;
    if (vec) {
      // With K % 4 == 0 a float4 of A is wholly inside or wholly outside the matrix (same for B).
      if (ar < M && ak < K) av = *reinterpret_cast<const float4*>(&A[(long long)ar * K + ak]);
      if (bk < K && bc < N) bv = *reinterpret_cast<const float4*>(&B[(long long)bk * N + bc]);
    } else {
      const float* pa = A + (long long)ar * K;
      const float* pb = B + (long long)bk * N;
      if (ar < M) {
        if (ak + 0 < K) av.x = pa[ak + 0];
        if (ak + 1 < K) av.y = pa[ak + 1];
        if (ak + 2 < K) av.z = pa[ak + 2];
        if (ak + 3 < K) av.w = pa[ak + 3];
      }
      if (bk < K) {
        if (bc + 0 < N) bv.x = pb[bc + 0];
        if (bc + 1 < N) bv.y = pb[bc + 1];
        if (bc + 2 < N) bv.z = pb[bc + 2];
        if (bc + 3 < N) bv.w = pb[bc + 3];
      }
    }
    // Transpose A on the way into shared memory; B goes in as it is.
    As[a_c + 0][a_r] = av.x;
    As[a_c + 1][a_r] = av.y;
    As[a_c + 2][a_r] = av.z;
    As[a_c + 3][a_r] = av.w;
    *reinterpret_cast<float4*>(&Bs[b_r][b_c]) = bv;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // 4 LDS.128 per k: a thread's 8 values of A (now contiguous) and 8 of B.
      const float4 a0 = *reinterpret_cast<const float4*>(&As[k][trow * TM]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[k][trow * TM + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tcol * TN]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][tcol * TN + 4]);
      const float a[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  // Store: float4 where the row is aligned and the 4 columns are inside C, scalars otherwise.
  const bool vec_c = (N % 4 == 0) && aligned16(C);
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + trow * TM + i;
    if (row >= M) break;
    float* crow = C + (long long)row * N;
#pragma unroll
    for (int j = 0; j < TN; j += 4) {
      const int col = col0 + tcol * TN + j;
      if (vec_c && col < N) {
        *reinterpret_cast<float4*>(&crow[col]) =
            make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (col + q < N) crow[col + q] = acc[i][j + q];
      }
    }
  }
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(6, "vectorized", "Vectorised loads", matmul_06_vectorized,
               {.block_x = 256, .block_y = 1, .tile_m = 128, .tile_n = 128, .smem_bytes = 0});
#endif
