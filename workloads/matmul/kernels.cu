// matmul device code: C = A*B, row-major fp32, any M, N, K. No host-only includes: shared by nvcc
// and NVRTC, and by every layer that runs our kernel text.
//
// This is the matmul ladder's rung 8 (workloads/matmul/ladder/08_async_pipeline.cu, where each
// choice is explained) in the form every layer can launch: 2 stages instead of 3, so its 36 KiB
// of shared memory are static and a launch needs no shared-memory attribute, plus split-K.
//
// Each 128-thread block computes a 128x128 tile of C: 4 warps of 64x64, each thread 8x16 results
// in registers. K is walked in slices of 16; while the warps multiply one slice, the next is
// copied from global to shared memory by cp.async (Ampere and later; older GPUs copy it with
// ordinary loads before the barrier, the same arithmetic). A slice of A stays row-major, each row
// padded to 20 floats so that a warp's reads fall in distinct banks. Elements past the matrix
// edges are copied as zeros; the 16-byte copies need K % 4 == 0, N % 4 == 0 and aligned A and B
// (checked at run time), else 4-byte copies are used.
//
// Split-K: a small C has fewer tiles than the GPU has SMs (512^3: 16 tiles for 132 SMs), so most
// SMs would idle. The launch then splits K over gridDim.z blocks per tile, whose parts are added
// (below). How many splits is the host's choice, from the problem's size and the SM count:
// variants/gpu_launch.h's matmul_grid, which every layer launches with.
#include "workloads/launch_config.h"

namespace lb_matmul {
constexpr int BM = LB_MM_BM, BN = LB_MM_BN, BK = 16, STAGES = 2;
constexpr int WM = 64, WN = 64;        // warp tile
constexpr int TM = 8, TN = 16;         // per thread
constexpr int LANES_N = WN / TN;       // 4 lanes across a warp tile ...
constexpr int LANES_M = 32 / LANES_N;  // ... 8 down
constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
static_assert(THREADS == LB_MM_THREADS, "launch_config.h's thread count is this kernel's");
static_assert(LANES_M * TM == WM && TN % 4 == 0, "the lanes cover the warp tile");
constexpr int AS = BK + 4;                            // padded row of A's slice, in floats
constexpr int A_STAGE = BM * AS, B_STAGE = BK * BN;   // floats per stage
constexpr int SMEM_FLOATS = STAGES * (A_STAGE + B_STAGE);  // 9216: 36 KiB

// Copy `bytes` (4 or 16) from global to shared memory, or zeros when `full` is false.
template <int BYTES>
__device__ __forceinline__ void copy_async(float* dst, const float* src, bool full) {
#if __CUDA_ARCH__ >= 800
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if (BYTES == 16)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(full ? 16 : 0));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(full ? 4 : 0));
#else
  if (BYTES == 16)
    *reinterpret_cast<float4*>(dst) = full ? *reinterpret_cast<const float4*>(src) : make_float4(0, 0, 0, 0);
  else
    *dst = full ? *src : 0.0f;
#endif
}
__device__ __forceinline__ void commit_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int PENDING>  // until at most PENDING of this thread's groups are in flight
__device__ __forceinline__ void wait_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}

__device__ __forceinline__ float component(const float4& v, int q) {
  return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

// One block's share of C = A*B: its tile (row0, col0) over the K-slices [kt_begin, kt_end) (all of
// K, or one split's part of it), summed into acc.
// VEC: the 16-byte copies' conditions hold. A template, not a run-time branch per copy: with the
// branch the main loop took 2741 instructions a slice against 2289 (cuobjdump -sass), and 4096^3
// ran 4% slower. The second instantiation did not make ptxas slower here (sm_90, -O3: 0.55 s
// against 0.58 s for the whole text).
template <bool VEC>
__device__ __forceinline__ void block_gemm(const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                           int K, int row0, int col0, int kt_begin, int kt_end, float* smem,
                                           float (&acc)[TM][TN]) {
  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / (BN / WN), warp_n = warp % (BN / WN);
  const int lane_m = lane / LANES_N, lane_n = lane % LANES_N;
  // This thread's rows of the tile: wr + i*LANES_M; columns: wc + j*4*LANES_N + (0..3).
  const int wr = warp_m * WM + lane_m;
  const int wc = warp_n * WN + lane_n * 4;
  float* const a_smem = smem;
  float* const b_smem = smem + STAGES * A_STAGE;

  constexpr int A_STEP = THREADS / (BK / 4), B_STEP = THREADS / (BN / 4);
  constexpr int A_VEC = BM / A_STEP, B_VEC = BK / B_STEP;  // float4s of each per thread
  const int a_r = tid / (BK / 4), a_c = (tid % (BK / 4)) * 4;
  const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
  auto load = [&](int t) {  // slice t into stage t % STAGES
    const int s = t % STAGES, k0 = t * BK;
    float* a_dst = a_smem + s * A_STAGE;
    float* b_dst = b_smem + s * B_STAGE;
    if (VEC) {
#pragma unroll
      for (int l = 0; l < A_VEC; ++l) {
        const int r = a_r + l * A_STEP;
        const bool ok = row0 + r < M && k0 + a_c < K;
        copy_async<16>(a_dst + r * AS + a_c, ok ? A + (long long)(row0 + r) * K + k0 + a_c : A, ok);
      }
#pragma unroll
      for (int l = 0; l < B_VEC; ++l) {
        const int r = b_r + l * B_STEP;
        const bool ok = k0 + r < K && col0 + b_c < N;
        copy_async<16>(b_dst + r * BN + b_c, ok ? B + (long long)(k0 + r) * N + col0 + b_c : B, ok);
      }
    } else {
      for (int e = tid; e < BM * BK; e += THREADS) {
        const int r = e / BK, c = e % BK;
        const bool ok = row0 + r < M && k0 + c < K;
        copy_async<4>(a_dst + r * AS + c, ok ? A + (long long)(row0 + r) * K + k0 + c : A, ok);
      }
      for (int e = tid; e < BK * BN; e += THREADS) {
        const int r = e / BN, c = e % BN;
        const bool ok = k0 + r < K && col0 + c < N;
        copy_async<4>(b_dst + r * BN + c, ok ? B + (long long)(k0 + r) * N + col0 + c : B, ok);
      }
    }
  };

  if (kt_begin < kt_end) load(kt_begin);
  commit_copies();
  for (int t = kt_begin; t < kt_end; ++t) {
    wait_copies<0>();  // slice t has landed (my copies) ...
    __syncthreads();   // ... everyone's; and everyone is done with slice t-1, whose stage is refilled next
    if (t + 1 < kt_end) load(t + 1);
    commit_copies();

    const int s = t % STAGES;
    const float* As = a_smem + s * A_STAGE + wr * AS;
    const float* Bs = b_smem + s * B_STAGE + wc;
#pragma unroll
    for (int kq = 0; kq < BK; kq += 4) {
      float4 a[TM];  // rows i, k-values kq .. kq+3
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = *reinterpret_cast<const float4*>(As + i * LANES_M * AS + kq);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float4 b[TN / 4];
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) b[j] = *reinterpret_cast<const float4*>(Bs + (kq + kk) * BN + j * 4 * LANES_N);
#pragma unroll
        for (int i = 0; i < TM; ++i) {
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
}

constexpr int QUADS = TM * TN / 4;  // float4s of acc per thread

__device__ __forceinline__ float4 quad_of(const float (&acc)[TM][TN], int q) {
  const float* v = &acc[q / (TN / 4)][4 * (q % (TN / 4))];
  return make_float4(v[0], v[1], v[2], v[3]);
}

// Quad q of thread t's results: its row and first column in the block's tile (as block_gemm lays
// them out: rows wr + i*LANES_M, columns wc + j*4*LANES_N, for q = i * TN/4 + j).
__device__ __forceinline__ int quad_row(int t, int q) {
  return ((t / 32) / (BN / WN)) * WM + (t % 32) / LANES_N + (q / (TN / 4)) * LANES_M;
}
__device__ __forceinline__ int quad_col(int t, int q) {
  return ((t / 32) % (BN / WN)) * WN + (t % 32) % LANES_N * 4 + (q % (TN / 4)) * 4 * LANES_N;
}

// Four results into C at (row, col .. col+3), those inside the matrix. Where N % 4 == 0 and C is
// 16-byte aligned (vec_c), a quad inside the matrix is one 16-byte store. Every store to C is this.
__device__ __forceinline__ void store_quad(float* C, int M, int N, int row, int col, bool vec_c, const float4& v) {
  if (row >= M) return;
  float* crow = C + (long long)row * N;
  if (vec_c && col < N) {
    *reinterpret_cast<float4*>(crow + col) = v;
  } else {
    const float quad[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (col + q < N) crow[col + q] = quad[q];
  }
}

// acc into the block's tile of C.
__device__ __forceinline__ void store_tile(float* C, int M, int N, int row0, int col0, bool vec_c,
                                           const float (&acc)[TM][TN]) {
#pragma unroll
  for (int q = 0; q < QUADS; ++q)
    store_quad(C, M, N, row0 + quad_row(threadIdx.x, q), col0 + quad_col(threadIdx.x, q), vec_c, quad_of(acc, q));
}

// Split-K, reduced in parallel and in a fixed order. Each split stores its part of the tile (acc,
// as the threads hold it: quad q of thread t at float4 q * THREADS + t) to its own slot of
// lb_mm_split_parts, counts itself in, and waits until all S splits of its tile have; then split z
// adds up slice z of the tile (QUADS / S of each thread's quads) from the S parts, in order 0, 1,
// ..., S-1, so every run gives the same bits. The S slices are added by S blocks at once, each
// reading 64 KiB with every load in flight; one block adding the whole tile reads S times that,
// and measured 14 of 32 us at 512^3 (S = 8) on an H100; the serial reduction before that, each
// split adding to C after the one before it, 31 of 36 us.
// Waiting for the other splits needs them all resident at once: the plan (matmul_grid) launches
// at most two blocks per SM, which __launch_bounds__(THREADS, 2) makes room for. Should that fail
// (another process's kernels holding SMs for long), a block that waits a second traps: a launch
// error, not a hang. S is a power of two, so that a slice is a whole number of quads a thread. The
// counters are zero when the module loads, and the split that counts last sets them back to zero.
constexpr int PART = QUADS * THREADS;  // float4s of a tile's part
__device__ float4 lb_mm_split_parts[LB_MM_SPLIT_PARTS * PART];
__device__ unsigned lb_mm_split_counts[LB_MM_SPLIT_PARTS];  // two a tile, and a split tile has 2+ parts

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// C's slice s of the tile = the sum of the S parts' slice s. A thread adds its own quads of the
// slice, QUADS / S of them: all QUADS loads are issued before the first add.
__device__ __forceinline__ void add_slice(const float4* parts, int splits, int s, float* C, int M, int N, int row0,
                                          int col0, bool vec_c) {
  const int t = threadIdx.x, per_thread = QUADS / splits, log2_splits = __ffs(splits) - 1;
  const float4* first = parts + s * per_thread * THREADS + t;
  float4 v[QUADS];  // load l: quad l / S of the slice, from part l % S
#pragma unroll
  for (int l = 0; l < QUADS; ++l)  // L2: other SMs wrote the parts, and this SM's L1 may be stale
    v[l] = __ldcg(first + (l >> log2_splits) * THREADS + (long long)(l & (splits - 1)) * PART);
  float4 sum;
#pragma unroll
  for (int l = 0; l < QUADS; ++l) {
    const int z = l & (splits - 1);
    if (z == 0) sum = v[l];
    else sum.x += v[l].x, sum.y += v[l].y, sum.z += v[l].z, sum.w += v[l].w;
    if (z != splits - 1) continue;
    const int q = s * per_thread + (l >> log2_splits);
    store_quad(C, M, N, row0 + quad_row(t, q), col0 + quad_col(t, q), vec_c, sum);
  }
}

__device__ __forceinline__ void tile_product(const float* __restrict__ A, const float* __restrict__ B,
                                             float* __restrict__ C, int M, int N, int K, int row0, int col0,
                                             int tile, bool vec, float* smem) {
  // This split's K-slices: an even share of the ceil(K / BK) slices, in order of blockIdx.z.
  const int splits = gridDim.z, z = blockIdx.z;
  const int ktiles = (K + BK - 1) / BK, per_split = (ktiles + splits - 1) / splits;
  const int kt_begin = min(z * per_split, ktiles), kt_end = min(kt_begin + per_split, ktiles);
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  if (vec)
    block_gemm<true>(A, B, M, N, K, row0, col0, kt_begin, kt_end, smem, acc);
  else
    block_gemm<false>(A, B, M, N, K, row0, col0, kt_begin, kt_end, smem, acc);
  const bool vec_c = vec && (reinterpret_cast<unsigned long long>(C) & 15) == 0;
  if (splits == 1) return store_tile(C, M, N, row0, col0, vec_c, acc);

  // Splits the plan (matmul_grid) never makes: not a power of two, more than QUADS, more parts
  // than slots, more blocks than two an SM.
  unsigned sms;
  asm("mov.u32 %0, %%nsmid;" : "=r"(sms));
  const unsigned blocks = gridDim.x * gridDim.y * splits;
  if ((splits & (splits - 1)) != 0 || splits > QUADS || blocks > LB_MM_SPLIT_PARTS || blocks > 2 * sms) __trap();
  float4* const parts = lb_mm_split_parts + (long long)tile * splits * PART;  // the tile's S parts
#pragma unroll
  for (int q = 0; q < QUADS; ++q) __stcg(parts + z * PART + q * THREADS + threadIdx.x, quad_of(acc, q));
  __threadfence();  // the part is visible GPU-wide before the count says so
  __syncthreads();
  unsigned* const stored = &lb_mm_split_counts[2 * tile];  // the tile's parts stored
  unsigned* const seen = stored + 1;                        // its splits that have seen them all
  if (threadIdx.x == 0) {
    atomicAdd(stored, 1u);
    const unsigned long long since = global_ns();
    while (load_acquire(stored) < unsigned(splits))
      if (global_ns() - since > 1000000000ull) __trap();  // a second: the splits are not all resident
    if (atomicAdd(seen, 1u) == unsigned(splits - 1)) *stored = 0, *seen = 0;  // nobody waits any more
  }
  __syncthreads();  // the whole block reads after thread 0's acquire
  add_slice(parts, splits, z, C, M, N, row0, col0, vec_c);
}

}  // namespace lb_matmul

extern "C" __global__ void __launch_bounds__(LB_MM_THREADS, 2)
matmul_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float smem[lb_matmul::SMEM_FLOATS];
  // Swizzle: consecutive blocks walk down a group of 8 block-rows before moving right, so the
  // blocks resident at one time share slices of A and B in L2.
  constexpr int kGroupM = 8;
  const int lin = blockIdx.y * gridDim.x + blockIdx.x;
  const int per_group = kGroupM * gridDim.x;
  const int first_m = (lin / per_group) * kGroupM;
  const int rows = min((int)gridDim.y - first_m, kGroupM);
  const int in_group = lin % per_group;
  const int row0 = (first_m + in_group % rows) * lb_matmul::BM;
  const int col0 = (in_group / rows) * lb_matmul::BN;
  const bool vec = K % 4 == 0 && N % 4 == 0 && (reinterpret_cast<unsigned long long>(A) & 15) == 0 &&
                   (reinterpret_cast<unsigned long long>(B) & 15) == 0;
  lb_matmul::tile_product(A, B, C, M, N, K, row0, col0, lin, vec, smem);
}
