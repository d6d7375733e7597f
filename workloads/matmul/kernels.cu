// matmul device code: C = A*B, row-major fp32, any M, N, K. No host-only includes: shared by nvcc
// and NVRTC.
//
// Each 256-thread block computes a 128x128 tile of C. It walks K in slices of 8: the block stages
// a 128x8 slice of A and an 8x128 slice of B in shared memory, then each thread multiplies them
// into its own 8x8 sub-tile held in registers. Per slice a thread reads 16 values from shared
// memory and does 64 fused multiply-adds, which is what lifts this far above one-thread-per-
// element kernels that read both operands from memory for every product.
#include "workloads/launch_config.h"

extern "C" __global__ void __launch_bounds__(LB_MM_THREADS)
matmul_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
             int M, int N, int K) {
  // A's slice is stored transposed (k-major) so that a thread's 8 rows are 8 adjacent floats.
  __shared__ __align__(16) float As[LB_MM_BK][LB_MM_BM];
  __shared__ __align__(16) float Bs[LB_MM_BK][LB_MM_BN];

  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * LB_MM_BM;
  const int col0 = blockIdx.x * LB_MM_BN;
  const int ty = tid / (LB_MM_BN / LB_MM_TN);  // which 8 rows of the tile
  const int tx = tid % (LB_MM_BN / LB_MM_TN);  // which 8 columns

  float acc[LB_MM_TM][LB_MM_TN];
#pragma unroll
  for (int i = 0; i < LB_MM_TM; ++i)
#pragma unroll
    for (int j = 0; j < LB_MM_TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += LB_MM_BK) {
    // Each thread stages 4 elements of each slice; elements past the matrix edge become 0.
#pragma unroll
    for (int l = 0; l < (LB_MM_BM * LB_MM_BK) / LB_MM_THREADS; ++l) {
      const int idx = tid + l * LB_MM_THREADS;
      const int ar = idx / LB_MM_BK, ac = idx % LB_MM_BK;
      const int gr = row0 + ar, gk = k0 + ac;
      As[ac][ar] = (gr < M && gk < K) ? A[(long long)gr * K + gk] : 0.0f;
      const int br = idx / LB_MM_BN, bc = idx % LB_MM_BN;
      const int bk = k0 + br, gc = col0 + bc;
      Bs[br][bc] = (bk < K && gc < N) ? B[(long long)bk * N + gc] : 0.0f;
    }
    __syncthreads();

#pragma unroll
    for (int kk = 0; kk < LB_MM_BK; ++kk) {
      float a[LB_MM_TM], b[LB_MM_TN];
      // 16-byte shared-memory loads: two per operand instead of eight.
      const float4 a0 = *reinterpret_cast<const float4*>(&As[kk][ty * LB_MM_TM]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[kk][ty * LB_MM_TM + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[kk][tx * LB_MM_TN]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[kk][tx * LB_MM_TN + 4]);
      a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
      a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
      b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w;
      b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
#pragma unroll
      for (int i = 0; i < LB_MM_TM; ++i)
#pragma unroll
        for (int j = 0; j < LB_MM_TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < LB_MM_TM; ++i) {
    const int r = row0 + ty * LB_MM_TM + i;
    if (r >= M) continue;
#pragma unroll
    for (int j = 0; j < LB_MM_TN; ++j) {
      const int c = col0 + tx * LB_MM_TN + j;
      if (c < N) C[(long long)r * N + c] = acc[i][j];
    }
  }
}
