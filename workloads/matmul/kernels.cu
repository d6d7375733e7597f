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
// SMs would idle. The launch then splits K over gridDim.z blocks per tile, which add their parts
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
// vec: the 16-byte copies' conditions hold (a run-time branch per copy, not a second instantiation
// of the loop: the text compiles in half the time).
__device__ __forceinline__ void block_gemm(const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                           int K, int row0, int col0, int kt_begin, int kt_end, bool vec, float* smem,
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
    if (vec) {
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

// f(i, j, crow, col) for each of this thread's quads of results, acc[i][4j .. 4j+3], whose row of C
// is inside the matrix: crow is that row, col the quad's first column.
template <class F>
__device__ __forceinline__ void for_each_quad(float* C, int M, int N, int row0, int col0, F f) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wr = (warp / (BN / WN)) * WM + lane / LANES_N;
  const int wc = (warp % (BN / WN)) * WN + (lane % LANES_N) * 4;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + wr + i * LANES_M;
    if (row >= M) break;  // rows grow with i
#pragma unroll
    for (int j = 0; j < TN / 4; ++j) f(i, j, C + (long long)row * N, col0 + wc + j * 4 * LANES_N);
  }
}

// acc into the block's tile of C. Where N % 4 == 0 and C is 16-byte aligned, a quad inside the
// matrix is one 16-byte store.
__device__ __forceinline__ void store_tile(float* C, int M, int N, int row0, int col0, bool vec,
                                           const float (&acc)[TM][TN]) {
  const bool vec_c = vec && (reinterpret_cast<unsigned long long>(C) & 15) == 0;
  for_each_quad(C, M, N, row0, col0, [&](int i, int j, float* crow, int col) {
    const float* v = &acc[i][4 * j];
    if (vec_c && col < N) {
      *reinterpret_cast<float4*>(crow + col) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (col + q < N) crow[col + q] = v[q];
    }
  });
}

// acc += the block's tile of C (store_tile follows). C is read through L2 (ld.global.cg): another
// block wrote it, and this SM's L1 may hold an older copy. A tile wholly inside C loads two rows'
// quads at a time with no test between them, so that 8 loads are in flight together: the tests of
// the edge path below put each load just before its add, and so the wait for L2 32 times in a row,
// which each split of a small matmul pays while the next one waits.
__device__ __forceinline__ void add_tile_of_c(float* C, int M, int N, int row0, int col0, bool vec,
                                              float (&acc)[TM][TN]) {
  const bool vec_c = vec && (reinterpret_cast<unsigned long long>(C) & 15) == 0;
  if (vec_c && row0 + BM <= M && col0 + BN <= N) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = (warp / (BN / WN)) * WM + lane / LANES_N;
    const int wc = (warp % (BN / WN)) * WN + (lane % LANES_N) * 4;
    const float* tile = C + (long long)(row0 + wr) * N + col0 + wc;
#pragma unroll
    for (int i = 0; i < TM; i += 2) {
      float4 old[2][TN / 4];
#pragma unroll
      for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int j = 0; j < TN / 4; ++j)
          old[r][j] = __ldcg(reinterpret_cast<const float4*>(tile + (long long)(i + r) * LANES_M * N + j * 4 * LANES_N));
#pragma unroll
      for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) {
          float* v = &acc[i + r][4 * j];
          v[0] += old[r][j].x, v[1] += old[r][j].y, v[2] += old[r][j].z, v[3] += old[r][j].w;
        }
    }
    return;
  }
  for_each_quad(C, M, N, row0, col0, [&](int i, int j, float* crow, int col) {
    float* v = &acc[i][4 * j];
    if (vec_c && col < N) {
      const float4 old = __ldcg(reinterpret_cast<const float4*>(crow + col));
      v[0] += old.x, v[1] += old.y, v[2] += old.z, v[3] += old.w;
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (col + q < N) v[q] += __ldcg(crow + col + q);
    }
  });
}

// Split-K, serially reduced (CUTLASS's "serial split-K"): the splits of one tile of C add their
// parts in order 0, 1, ..., S-1, each after the one before it has stored; split z waits until its
// tile's flag says z. The order is fixed, so the result is the same bits in every run. The flags
// live in the module (zero when it loads) and the last split sets its tile's back to zero, so
// every launch finds them zero with no memset. Waiting is safe because a GPU starts a grid's
// blocks in order of their index, blockIdx.z the slowest: every block of split z-1 has started
// before any of split z, and none of them waits on a later split.
__device__ unsigned lb_mm_split_flags[LB_MM_SPLIT_TILES];

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
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
  block_gemm(A, B, M, N, K, row0, col0, kt_begin, kt_end, vec, smem, acc);
  if (splits == 1) return store_tile(C, M, N, row0, col0, vec, acc);

  if (gridDim.x * gridDim.y > LB_MM_SPLIT_TILES) __trap();  // more tiles than flags: the plan never does this
  unsigned* const flag = &lb_mm_split_flags[tile];
  if (z > 0) {
    if (threadIdx.x == 0)
      while (load_acquire(flag) != unsigned(z)) {
      }
    __syncthreads();  // the whole block waits for thread 0's acquire
    add_tile_of_c(C, M, N, row0, col0, vec, acc);
  }
  store_tile(C, M, N, row0, col0, vec, acc);
  __threadfence();
  __syncthreads();  // every thread's part of the tile is stored before the flag moves on
  if (threadIdx.x == 0) store_release(flag, z + 1 == splits ? 0u : unsigned(z + 1));
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
