// Rung 7 — Warptiling. Changes against rung 6: a level of tiling between the block and the
// thread. The 128x128 block tile is split among 8 warps, each owning a 64x32 warp tile; inside it
// the 32 lanes are laid out explicitly (8 rows x 4 columns of lanes), and each thread computes
// WNITER = 2 sub-tiles of 8x4 spread 16 columns apart: 8x8 = 64 results, as in rung 6. K is
// walked in slices of 16 (rung 6: 8).
// Why it is faster: the results per thread are the same, but the warp's footprint is not. In rung
// 6 a warp's 32 threads cover 2 x 16 thread tiles (16 x 128 of C): per k the warp reads 16 floats
// of A and 128 of B from shared memory. Here they cover 64 x 32: 64 of A (8 lanes share each row:
// a broadcast) and 32 of B, 96 distinct floats instead of 144, so fewer shared-memory wavefronts
// per FMA; and slices of 16 halve the barriers per FMA. Warps map to the SM's four scheduler
// partitions, so tiling per warp is tiling in the hardware's unit. (An 8x16-per-thread version,
// 128 threads of 217 registers, ran slower than rung 6 on an H100: 2 blocks, 8 warps an SM, too
// few to hide the loads that nothing overlaps yet. Rung 8 overlaps them.)
// Follows: Simon Boehm's SGEMM_CUDA kernel 10 (siboehm.com/articles/22/CUDA-MMM), after
// NVIDIA's CUTLASS warp-level GEMM (developer.nvidia.com/blog/cutlass-linear-algebra-cuda).

namespace matmul_07 {
constexpr int BM = 128, BN = 128, BK = 16;
constexpr int WM = 64, WN = 32;                 // warp tile
constexpr int TM = 8, TN = 4, WNITER = 2;       // per thread: WNITER sub-tiles of TM x TN
constexpr int WSUBN = WN / WNITER;              // 16: columns between a thread's sub-tiles
constexpr int LANES_N = WSUBN / TN;             // 4 lanes across a sub-tile's columns
constexpr int LANES_M = 32 / LANES_N;           // 8 lanes down: 8 x TM = 64 = WM rows
constexpr int THREADS = (BM / WM) * (BN / WN) * 32;  // 256
static_assert(LANES_M * TM == WM, "the lanes cover the warp tile's rows");
constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of A per thread per slice: 2
constexpr int B_LOADS = BK * BN / 4 / THREADS;  // 2

__device__ __forceinline__ bool aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}
}  // namespace matmul_07

extern "C" __global__ void __launch_bounds__(matmul_07::THREADS)
matmul_07_warptiling(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C, int M, int N, int K) {
  using namespace matmul_07;
  __shared__ __align__(16) float As[BK][BM];  // transposed, as in rung 6
  __shared__ __align__(16) float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / (BN / WN), warp_n = warp % (BN / WN);
  const int lane_m = lane / LANES_N, lane_n = lane % LANES_N;
  // This thread's rows in the tile: m0 .. m0+7; its columns: n0 + s*WSUBN + (0..3), s < WNITER.
  const int m0 = warp_m * WM + lane_m * TM;
  const int n0 = warp_n * WN + lane_n * TN;
  const bool vec = (K % 4 == 0) && (N % 4 == 0) && aligned16(A) && aligned16(B);

  float acc[TM][WNITER * TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    // Stage the slices (float4 where aligned, zero past the edges), transposing A.
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
      const int f = tid + l * THREADS;
      const int r = f / (BK / 4), c = (f % (BK / 4)) * 4;
      const int gr = row0 + r, gk = k0 + c;
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (gr < M) {
        const float* p = A + (long long)gr * K + gk;
        if (vec) {
          if (gk < K) v = *reinterpret_cast<const float4*>(p);
        } else {
          if (gk + 0 < K) v.x = p[0];
          if (gk + 1 < K) v.y = p[1];
          if (gk + 2 < K) v.z = p[2];
          if (gk + 3 < K) v.w = p[3];
        }
      }
      As[c + 0][r] = v.x;
      As[c + 1][r] = v.y;
      As[c + 2][r] = v.z;
      As[c + 3][r] = v.w;
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
      const int f = tid + l * THREADS;
      const int r = f / (BN / 4), c = (f % (BN / 4)) * 4;
      const int gk = k0 + r, gc = col0 + c;
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (gk < K) {
        const float* p = B + (long long)gk * N + gc;
        if (vec) {
          if (gc < N) v = *reinterpret_cast<const float4*>(p);
        } else {
          if (gc + 0 < N) v.x = p[0];
          if (gc + 1 < N) v.y = p[1];
          if (gc + 2 < N) v.z = p[2];
          if (gc + 3 < N) v.w = p[3];
        }
      }
      *reinterpret_cast<float4*>(&Bs[r][c]) = v;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // Registers: 8 values of A (2 x LDS.128), 16 of B (4 x LDS.128, one per sub-tile).
      float a[TM], b[WNITER * TN];
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(&As[k][m0 + i]);
        a[i] = v.x; a[i + 1] = v.y; a[i + 2] = v.z; a[i + 3] = v.w;
      }
#pragma unroll
      for (int s = 0; s < WNITER; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(&Bs[k][n0 + s * WSUBN]);
        b[s * TN] = v.x; b[s * TN + 1] = v.y; b[s * TN + 2] = v.z; b[s * TN + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  const bool vec_c = (N % 4 == 0) && aligned16(C);
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + m0 + i;
    if (row >= M) break;
    float* crow = C + (long long)row * N;
#pragma unroll
    for (int s = 0; s < WNITER; ++s) {
      const int col = col0 + n0 + s * WSUBN;
      const float* v = &acc[i][s * TN];
      if (vec_c && col < N) {
        *reinterpret_cast<float4*>(&crow[col]) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int q = 0; q < TN; ++q)
          if (col + q < N) crow[col + q] = v[q];
      }
    }
  }
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(7, "warptiling", "Warptiling", matmul_07_warptiling,
               {.block_x = 256, .block_y = 1, .tile_m = 128, .tile_n = 128, .smem_bytes = 0});
#endif
