// Rung 9 — cp.async pipeline, wide tile, deep slices. Changes against rung 8: a 128x256 block
// tile (8 warps of 64x64, 256 threads, the same 8x16 results per thread) and K slices of 32 (rung
// 8: 16) in 2 stages; one block per SM (255 registers x 256 threads fill the register file).
// Why it is faster: each slice brings twice the FMAs per barrier, per cp.async commit and wait and
// per loop iteration, and each element of B copied into shared memory feeds twice the rows, so a
// larger share of the issue slots goes to FMAs. 2 stages of 32 keep 64 of K in shared memory
// (rung 8: 3 of 16, 48), in 100 KiB.
// How it was chosen, on an H100 (4096^3, % of cuBLAS SGEMM in the same run): rung 8's 128x128
// tile with 3 stages of 16: 80.9%; this tile with 4 stages of 16: 81.4%; 128x128 with 2 stages of
// 32: 83.7%; 256x128 with 2 of 32: 84.6%; this one: 85.3% (2048^3: 81.4%, 4096x4096x1024: 84.0%).
// What holds it under cuBLAS, by ncu: the same instructions issue less often (dispatch stalls:
// register-bank conflicts ptxas leaves), not the non-FMA instructions or the barrier each slice
// ends with (docs/ladders.md, "What stands between the top rung and 90% of cuBLAS").
// Everything else — A kept row-major with padded rows, the edge handling, the swizzle — is rung
// 8's; see there (its padding argument was made for rows of 20 floats; these rows are 36).
// Follows: NVIDIA CUTLASS's multistage SIMT GEMM (github.com/NVIDIA/cutlass); Simon Boehm's
// SGEMM_CUDA (siboehm.com/articles/22/CUDA-MMM).

namespace matmul_09 {
constexpr int BM = 128, BN = 256, BK = 32, STAGES = 2;
constexpr int WM = 64, WN = 64;                 // warp tile
constexpr int TM = 8, TN = 16;                  // per thread
constexpr int LANES_N = WN / TN;                // 4 lanes across a warp tile ...
constexpr int LANES_M = 32 / LANES_N;           // ... 8 down
static_assert(LANES_M * TM == WM && TN % 4 == 0, "the lanes cover the warp tile");
constexpr int THREADS = (BM / WM) * (BN / WN) * 32;  // 256
constexpr int AS = BK + 4;                      // padded row of A's slice, in floats (144 bytes)
constexpr int A_STAGE = BM * AS, B_STAGE = BK * BN;  // floats per stage
constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * 4;  // 102400
static_assert(SMEM_BYTES <= 227 * 1024, "a block fits an SM's shared memory");
constexpr int GROUP_M = 8;                      // swizzle: block-rows per group

// cp.async: copy `bytes` (4 or 16) from global to shared; if `full` is false read nothing and
// write zeros. .cg (16-byte only) bypasses L1; the L2::128B hint prefetches the rest of the line.
__device__ __forceinline__ void cp_async16(unsigned dst, const float* src, bool full) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(full ? 16 : 0));
}
__device__ __forceinline__ void cp_async4(unsigned dst, const float* src, bool full) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(full ? 4 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>  // wait until at most PENDING of this thread's groups are still in flight
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

__device__ __forceinline__ float component(const float4& v, int q) {  // q is a constant after unrolling
  return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

__device__ __forceinline__ bool aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}

// The whole GEMM of one block. VEC: the 16-byte copy path (K % 4 == 0, N % 4 == 0, aligned).
template <bool VEC>
__device__ __forceinline__ void block_gemm(const float* __restrict__ A, const float* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K, int row0,
                                           int col0, float* smem) {
  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / (BN / WN), warp_n = warp % (BN / WN);
  const int lane_m = lane / LANES_N, lane_n = lane % LANES_N;
  // This thread's rows of the tile: wr + i*LANES_M (i < TM); columns: wc + j*4*LANES_N + (0..3).
  const int wr = warp_m * WM + lane_m;
  const int wc = warp_n * WN + lane_n * 4;

  const unsigned a_smem = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned b_smem = a_smem + STAGES * A_STAGE * 4;

  // The 16-byte copies this thread issues per slice: float4 (a_r + l*A_STEP, a_c) of A's slice,
  // (b_r + l*B_STEP, b_c) of B's. Pointers are set up once and advanced by one slice per step;
  // what is outside the matrix is known up front except for the K edge.
  constexpr int A_STEP = THREADS / (BK / 4), B_STEP = THREADS / (BN / 4);
  constexpr int A_VEC = BM / A_STEP, B_VEC = BK / B_STEP;  // float4s of each per thread
  const int a_r = tid / (BK / 4), a_c = (tid % (BK / 4)) * 4;
  const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
  const float* a_src = A + (long long)(row0 + a_r) * K + a_c;
  const float* b_src = B + (long long)b_r * N + col0 + b_c;
  const long long a_step = (long long)A_STEP * K, b_step = (long long)B_STEP * N;
  unsigned a_rows_ok = 0;
#pragma unroll
  for (int l = 0; l < A_VEC; ++l) a_rows_ok |= (row0 + a_r + l * A_STEP < M) << l;
  const bool b_col_ok = col0 + b_c < N;  // N % 4 == 0: a float4 is all in or all out

  const int ktiles = (K + BK - 1) / BK;
  auto load = [&](int t) {  // slice t into stage t % STAGES
    const int s = t % STAGES, k0 = t * BK;
    const unsigned a_dst = a_smem + s * A_STAGE * 4, b_dst = b_smem + s * B_STAGE * 4;
    if (VEC) {
      const float* pa = a_src + k0;
      const float* pb = b_src + (long long)k0 * N;
#pragma unroll
      for (int l = 0; l < A_VEC; ++l) {
        const bool ok = ((a_rows_ok >> l) & 1) && k0 + a_c < K;
        cp_async16(a_dst + ((a_r + l * A_STEP) * AS + a_c) * 4, ok ? pa + l * a_step : A, ok);
      }
#pragma unroll
      for (int l = 0; l < B_VEC; ++l) {
        const bool ok = b_col_ok && k0 + b_r + l * B_STEP < K;
        cp_async16(b_dst + ((b_r + l * B_STEP) * BN + b_c) * 4, ok ? pb + l * b_step : B, ok);
      }
    } else {  // 4-byte copies, each guarded: any shape, any alignment (slower; rare)
#pragma unroll 4
      for (int e = tid; e < BM * BK; e += THREADS) {
        const int r = e / BK, c = e % BK;
        const bool ok = row0 + r < M && k0 + c < K;
        cp_async4(a_dst + (r * AS + c) * 4, ok ? A + (long long)(row0 + r) * K + k0 + c : A, ok);
      }
#pragma unroll 4
      for (int e = tid; e < BK * BN; e += THREADS) {
        const int r = e / BN, c = e % BN;
        const bool ok = k0 + r < K && col0 + c < N;
        cp_async4(b_dst + (r * BN + c) * 4, ok ? B + (long long)(k0 + r) * N + col0 + c : B, ok);
      }
    }
  };

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // Prologue: slices 0 .. STAGES-2 in flight. Every step commits one group (maybe empty) so
  // that group t is always slice t.
#pragma unroll
  for (int t = 0; t < STAGES - 1; ++t) {
    if (t < ktiles) load(t);
    cp_async_commit();
  }

  for (int t = 0; t < ktiles; ++t) {
    cp_async_wait<STAGES - 2>();  // my copies of slice t have landed ...
    __syncthreads();              // ... and everyone's; and everyone is done with slice t-1
    if (t + STAGES - 1 < ktiles) load(t + STAGES - 1);  // refill the stage slice t-1 used
    cp_async_commit();

    const int s = t % STAGES;
    const float* As = smem + s * A_STAGE + wr * AS;                // row i at + i*LANES_M*AS
    const float* Bs = smem + STAGES * A_STAGE + s * B_STAGE + wc;  // chunk j at + j*4*LANES_N
#pragma unroll
    for (int kq = 0; kq < BK; kq += 4) {
      float4 a[TM];  // rows i, k-values kq .. kq+3
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = *reinterpret_cast<const float4*>(As + i * LANES_M * AS + kq);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float4 b[TN / 4];
#pragma unroll
        for (int j = 0; j < TN / 4; ++j)
          b[j] = *reinterpret_cast<const float4*>(Bs + (kq + kk) * BN + j * 4 * LANES_N);
#pragma unroll
        for (int i = 0; i < TM; ++i) {  // the outer product: 8 x 16 FMAs
          const float av = component(a[i], kk);
#pragma unroll
          for (int j = 0; j < TN / 4; ++j) {
            acc[i][4 * j + 0] = fmaf(av, b[j].x, acc[i][4 * j + 0]);
            acc[i][4 * j + 1] = fmaf(av, b[j].y, acc[i][4 * j + 1]);
            acc[i][4 * j + 2] = fmaf(av, b[j].z, acc[i][4 * j + 2]);
            acc[i][4 * j + 3] = fmaf(av, b[j].w, acc[i][4 * j + 3]);
          }
        }
      }
    }
  }
  cp_async_wait<0>();  // nothing in flight at exit (only empty groups remain)

  const bool vec_c = VEC && ((reinterpret_cast<unsigned long long>(C) & 15) == 0);
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + wr + i * LANES_M;
    if (row >= M) break;  // rows grow with i
    float* crow = C + (long long)row * N;
#pragma unroll
    for (int j = 0; j < TN / 4; ++j) {
      const int col = col0 + wc + j * 4 * LANES_N;
      const float* v = &acc[i][4 * j];
      if (vec_c && col < N) {  // N % 4 == 0: all four columns are inside
        *reinterpret_cast<float4*>(crow + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (col + q < N) crow[col + q] = v[q];
      }
    }
  }
}
}  // namespace matmul_09

extern "C" __global__ void __launch_bounds__(matmul_09::THREADS, 1)
matmul_09_async_pipeline_wide(const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C, int M, int N, int K) {
  using namespace matmul_09;
  extern __shared__ __align__(16) float smem[];  // STAGES slices of A, then STAGES slices of B

  // Swizzle: renumber the blocks so that consecutive ones go down GROUP_M block-rows first.
  const int lin = blockIdx.y * gridDim.x + blockIdx.x;
  const int per_group = GROUP_M * gridDim.x;
  const int first_m = (lin / per_group) * GROUP_M;
  const int rows = min((int)gridDim.y - first_m, GROUP_M);
  const int in_group = lin % per_group;
  const int row0 = (first_m + in_group % rows) * BM;
  const int col0 = (in_group / rows) * BN;

  if ((K % 4 == 0) && (N % 4 == 0) && aligned16(A) && aligned16(B))
    block_gemm<true>(A, B, C, M, N, K, row0, col0, smem);
  else
    block_gemm<false>(A, B, C, M, N, K, row0, col0, smem);
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(9, "async_pipeline_wide", "cp.async pipeline, 128x256 tile, 32-deep slices", matmul_09_async_pipeline_wide,
               {.block_x = 256, .block_y = 1, .tile_m = 128, .tile_n = 256,
                .smem_bytes = matmul_09::SMEM_BYTES});
#endif
