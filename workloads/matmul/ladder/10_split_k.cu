// Rung 10 — Split-K: fill the SMs when C has few tiles. Changes against rung 9: nothing in how a
// block multiplies (the 128x256 tile, 8 warps of 64x64, 8x16 results a thread, K slices of 32 in
// a 2-stage cp.async pipeline, one block per SM: all rung 9's), but the grid has a third
// dimension: gridDim.z = S splits of K. Block (x, y, z) multiplies its tile of C over the z-th
// share of K's slices only, and the S partial tiles of a tile are added at the end. With S = 1 it
// is rung 9's kernel, store for store.
// Why it helps where it helps: an SM runs blocks, and rung 9 has one block per tile of C. At
// 4096^3, C has 512 tiles of 128x256, about 4 waves over an H100's 132 SMs: every SM has work. At
// 1024^3 it has 32: 32 SMs compute and 100 idle, and at 512^3 8 tiles keep 8 SMs of 132 busy. No
// change to the inner loop can help an SM that has no block. Split K into S shares and each tile
// is S blocks of 1/S of the work: 1024^3 with S = 4 is 128 blocks of 8 slices instead of 32 blocks
// of 32, so the multiply takes about a quarter of the time, and the parts must then be added.
// Why not everywhere: a C that fills the GPU with tiles gains nothing (more blocks than SMs only
// queue) and would pay for the parts, so the host splits only a small C: 4096^3 (and 2048^3, 128
// tiles, one wave) run with S = 1, the same kernel as rung 9. How S is chosen, on the host:
// variants/ladder_launch.h's matmul_rung_splits, the largest power of two with tiles x S <= SMs
// (one wave of blocks, one per SM), within the constants below, which this file's registration
// hands to it (MatmulLaunch's split_k, slice_k, max_splits, split_parts), so they are written once.
// The cost of a split, and how the parts meet:
//  1. Each split stores its partial tile (128x256 floats, 128 KiB) to its own slot of a
//     workspace, a __device__ array in this module: tile t's part z at slot t*S + z. The stores
//     are __stcg (L2, not L1: another SM reads them) in the order the threads hold the results
//     (a thread's quad q at float4 q*THREADS + thread), so each warp's store is whole lines.
//  2. Then __threadfence() (the part is visible to the whole GPU before anything after it) and a
//     ticket: thread 0 adds 1 to the tile's counter with atomicAdd. Splits arrive in any order;
//     the one that draws ticket S-1 knows the other S-1 parts are stored, and is the only one that
//     goes on; the others exit. Nobody waits for another block, so the splits need not be resident
//     at the same time: any grid runs, on any number of SMs. (kernels.cu's default kernel instead
//     has every split wait until all have stored, then add 1/S of the tile each: faster adds, but
//     all splits must be resident at once, which its plan must guarantee.)
//  3. The last split fences again (what the others stored is visible to what it reads next),
//     loads the S parts with __ldcg (through L2: other SMs wrote them, and this SM's L1 is not
//     coherent with theirs), adds them in the order 0, 1, ..., S-1, its own part read back like
//     the others, and stores the sum to C as rung 9 stores a tile. Which split arrives last changes
//     from run to run; the order of the adds does not, so every run gives the same bits (not the
//     bits of S = 1: that is another order of the adds).
//  4. Having drawn the last ticket, it sets the tile's counter back to 0 (every ticket of this
//     launch is drawn), for the next launch. The counters are zero when the module loads. Two launches of this kernel must not run at once (they would share counters
//     and slots): the harness runs one at a time on one stream.
// What a split costs: one block per tile reads S x 128 KiB from L2 and adds it, while the SMs whose
// splits arrived earlier have nothing left to do; that is why S stays small (at most 16, and no more
// blocks than SMs). The workspace holds SPLIT_PARTS partial tiles; a launch that would need
// more (tiles x S > SPLIT_PARTS) traps (a launch error, never a wrong C); the host's plan never
// asks for one. Measured figures: docs/ladders.md.
// Follows: the CUDA C++ Programming Guide's example for memory fences (the last block of a sum,
// found with __threadfence and an atomic ticket); NVIDIA CUTLASS's split-K GEMMs
// (github.com/NVIDIA/cutlass), whose parallel split-K writes the parts to a workspace that a
// second kernel adds; here the last split adds them instead, in the same launch.

namespace matmul_10 {
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

// Split-K. The host's plan (matmul_rung_splits) reads these through the registration below.
constexpr int MAX_SPLITS = 16;    // S is at most this (a power of two, at most K's slices)
constexpr int SPLIT_PARTS = 160;  // partial tiles the workspace holds: 160 x 128 KiB = 20 MiB
constexpr int QUADS = TM * TN / 4;     // float4s of results a thread
constexpr int PART = QUADS * THREADS;  // float4s of a partial tile
static_assert(PART * 4 == BM * BN, "a part is one tile of C");
// The workspace: a tile's S parts at slots [tile*S, tile*S + S), and a ticket counter per tile (a
// split tile takes 2 slots or more: SPLIT_PARTS / 2 tiles at most). Zero when the module loads.
__device__ float4 split_parts[SPLIT_PARTS * PART];
__device__ unsigned split_tickets[SPLIT_PARTS / 2];

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

// One block's product over K's slices [kt_begin, kt_end) into acc (rung 9's main loop; rung 9
// walks all of K: kt_begin = 0, kt_end = ceil(K / BK)). VEC: the 16-byte copy path (K % 4 == 0,
// N % 4 == 0, aligned).
template <bool VEC>
__device__ __forceinline__ void block_gemm(const float* __restrict__ A, const float* __restrict__ B,
                                           int M, int N, int K, int row0, int col0, int kt_begin,
                                           int kt_end, float* smem, float (&acc)[TM][TN]) {
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

#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // Prologue: slices kt_begin .. kt_begin+STAGES-2 in flight. Every step commits one group (maybe
  // empty) so that group t - kt_begin is always slice t. A split with no slice (more splits than
  // slices) loads nothing, and its part is zeros.
#pragma unroll
  for (int t = 0; t < STAGES - 1; ++t) {
    if (kt_begin + t < kt_end) load(kt_begin + t);
    cp_async_commit();
  }

  for (int t = kt_begin; t < kt_end; ++t) {
    cp_async_wait<STAGES - 2>();  // my copies of slice t have landed ...
    __syncthreads();              // ... and everyone's; and everyone is done with slice t-1
    if (t + STAGES - 1 < kt_end) load(t + STAGES - 1);  // refill the stage slice t-1 used
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
}

// acc into the block's tile of C: rung 9's stores, those inside the matrix.
__device__ __forceinline__ void store_tile(float* __restrict__ C, int M, int N, int row0, int col0,
                                           bool vec_c, const float (&acc)[TM][TN]) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wr = (warp / (BN / WN)) * WM + lane / LANES_N;
  const int wc = (warp % (BN / WN)) * WN + (lane % LANES_N) * 4;
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

// S > 1: store this split's part, take a ticket; the last of the tile's S splits adds the parts in
// order 0..S-1 into acc and returns true (its caller stores acc to C), the others return false.
__device__ __forceinline__ bool gather_parts(int tile, int splits, int z, float (&acc)[TM][TN]) {
  float4* const parts = split_parts + (long long)tile * splits * PART + threadIdx.x;  // my quads of part 0
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN / 4; ++j)
      __stcg(parts + (long long)z * PART + (i * (TN / 4) + j) * THREADS,
             make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]));
  __threadfence();  // my part is visible GPU-wide before my ticket says it is stored ...
  __syncthreads();  // ... and every thread's is, before thread 0 takes the block's ticket
  bool last = false;
  if (threadIdx.x == 0) {
    last = atomicAdd(&split_tickets[tile], 1u) == unsigned(splits - 1);
    if (last) {
      split_tickets[tile] = 0;  // all S tickets are drawn: nobody touches it again in this launch
      __threadfence();          // the others' parts, fenced before their tickets, are seen after mine
    }
  }
  if (!__syncthreads_or(last)) return false;  // not the last split: my part is in, my work done

  // Part 0, then + part 1, ..., + part S-1: the same order whichever split is last. Loads are
  // issued in batches before their adds: part 0's 32 quads straight into acc, then half a part (16
  // quads, 64 registers on top of acc's 128) at a time.
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN / 4; ++j) {
      const float4 v = __ldcg(parts + (i * (TN / 4) + j) * THREADS);
      acc[i][4 * j] = v.x, acc[i][4 * j + 1] = v.y, acc[i][4 * j + 2] = v.z, acc[i][4 * j + 3] = v.w;
    }
  for (int s = 1; s < splits; ++s) {
#pragma unroll
    for (int h = 0; h < TM; h += TM / 2) {
      float4 v[TM / 2][TN / 4];
#pragma unroll
      for (int i = 0; i < TM / 2; ++i)
#pragma unroll
        for (int j = 0; j < TN / 4; ++j)
          v[i][j] = __ldcg(parts + (long long)s * PART + ((h + i) * (TN / 4) + j) * THREADS);
#pragma unroll
      for (int i = 0; i < TM / 2; ++i)
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) {
          acc[h + i][4 * j] += v[i][j].x, acc[h + i][4 * j + 1] += v[i][j].y;
          acc[h + i][4 * j + 2] += v[i][j].z, acc[h + i][4 * j + 3] += v[i][j].w;
        }
    }
  }
  return true;
}
}  // namespace matmul_10

extern "C" __global__ void __launch_bounds__(matmul_10::THREADS, 1)
matmul_10_split_k(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                  int M, int N, int K) {
  using namespace matmul_10;
  extern __shared__ __align__(16) float smem[];  // STAGES slices of A, then STAGES slices of B

  // More parts than the workspace holds, or more splits than the plan makes: refused, not wrong.
  const int splits = gridDim.z, z = blockIdx.z;
  if (splits > 1 && (splits > MAX_SPLITS || (long long)gridDim.x * gridDim.y * splits > SPLIT_PARTS)) __trap();

  // Swizzle: renumber the blocks so that consecutive ones go down GROUP_M block-rows first.
  const int lin = blockIdx.y * gridDim.x + blockIdx.x;
  const int per_group = GROUP_M * gridDim.x;
  const int first_m = (lin / per_group) * GROUP_M;
  const int rows = min((int)gridDim.y - first_m, GROUP_M);
  const int in_group = lin % per_group;
  const int row0 = (first_m + in_group % rows) * BM;
  const int col0 = (in_group / rows) * BN;

  // This split's slices of K: an even share of the ceil(K / BK), in order of z (S = 1: all of K).
  const int ktiles = (K + BK - 1) / BK, per_split = (ktiles + splits - 1) / splits;
  const int kt_begin = min(z * per_split, ktiles), kt_end = min(kt_begin + per_split, ktiles);

  const bool vec = (K % 4 == 0) && (N % 4 == 0) && aligned16(A) && aligned16(B);
  float acc[TM][TN];
  if (vec)
    block_gemm<true>(A, B, M, N, K, row0, col0, kt_begin, kt_end, smem, acc);
  else
    block_gemm<false>(A, B, M, N, K, row0, col0, kt_begin, kt_end, smem, acc);
  if (splits > 1 && !gather_parts(lin, splits, z, acc)) return;
  store_tile(C, M, N, row0, col0, vec && aligned16(C), acc);
}

#ifndef __CUDACC_RTC__  // the launch shape, for the host (NVRTC compiles the kernel alone)
#include "workloads/ladder.h"
LB_MATMUL_RUNG(10, "split_k", "Split-K: fill the SMs when C has few tiles", matmul_10_split_k,
               {.block_x = 256, .block_y = 1, .tile_m = 128, .tile_n = 256,
                .smem_bytes = matmul_10::SMEM_BYTES, .split_k = true, .slice_k = matmul_10::BK,
                .max_splits = matmul_10::MAX_SPLITS, .split_parts = matmul_10::SPLIT_PARTS});
#endif
