// transpose device code: B = A^T, A is M x N and B is N x M, both row-major fp32, out of place. No
// host-only includes: shared by nvcc and NVRTC, and by every layer that runs our kernel text.
//
// Why a tile. The obvious kernel, one thread per element, B[j*M + i] = A[i*N + j], reads A along
// its rows and so writes B down its columns: a warp's 32 stores land 4M bytes apart, 32 memory
// transactions for 128 useful bytes. Here each block stages a TILE x TILE tile of A in shared
// memory: it reads the tile row by row (a warp reads 32 consecutive floats of one row of A, one
// 128-byte line) and writes it out column by column, and a column of the tile is part of a row of
// B (a warp writes 32 consecutive floats of one row of B). Both sides of global memory are
// coalesced; the turn happens in shared memory.
//
// Why TILE + 1. Shared memory has 32 banks of 4 bytes: float c of tile row r sits in bank
// (r * (TILE + 1) + c) % 32. The write phase has a warp read one column of the tile, 32 rows apart.
// With rows of TILE floats (32 or 64: a multiple of 32) all 32 reads would fall in one bank and be
// served one after another; with TILE + 1 (= 1 mod 32) row r's float c is in bank (r + c) % 32, 32
// different banks. The padding costs TILE floats of shared memory and changes no result.
//
// Why 16-byte accesses. A warp's 32 scalar loads of one tile row move 128 bytes; the same warp's
// 32 float4 loads move 512. At HBM3's rate an SM needs tens of KB in flight to cover DRAM's
// latency, and the loads in flight are those issued before the barrier: with float4s each thread
// has four times the bytes in flight for the same instructions, and the tile's 16 KB is read in
// a quarter of the load instructions (an LSU request per 512 bytes, not per 128). The stores are
// float4s of B's rows too, built from four reads of one tile column. So a block is
// (TILE / 4) x ROWS threads: threadIdx.x names a float4 of a tile row (16 of them across 64
// floats, so a warp covers two rows, each one 256-byte run), threadIdx.y the row, stepping by
// ROWS. The padding still serves: float c of row r is in bank (r + c) % 32, so a warp's 32 reads
// of tile[4q + j][r] (q = 0..15, two rows r) touch each bank at most twice; two shared-memory
// passes per 32 floats, far below what the DRAM side takes for them.
// The float4 path needs both matrices' rows to start on 16 bytes (N % 4 == 0 for A's rows,
// M % 4 == 0 for B's, both pointers aligned); any other shape takes the scalar path, element by
// element, the same transpose.
//
// Why this shape (LB_TR_TILE, LB_TR_ROWS in launch_config.h). The tile is 64 x 65 floats (16.6 KB);
// a block of 16 x ROWS threads moves 64 / ROWS float4s a thread each way. ROWS = 8 (128 threads,
// eight float4 loads in flight a thread, up to 13 blocks an SM by shared memory) is the shape of
// Triton's 64 x 64 program with its 4 warps; which of 4, 8, 16 and 32 is fastest on a given GPU is a
// measurement (tools/experiments/kernel-candidates.sh times them), and changing it is one number in
// launch_config.h.
#include "workloads/launch_config.h"

namespace lb_transpose {
constexpr int TILE = LB_TR_TILE, ROWS = LB_TR_ROWS, VEC = 4, CHUNKS = TILE / VEC, PASSES = TILE / ROWS;
static_assert(TILE % ROWS == 0 && TILE % VEC == 0, "each thread moves TILE / ROWS whole float4s of rows");
static_assert(CHUNKS == LB_TR_BLOCK_X, "launch_config.h's block is TILE / 4 threads across");
using Tile = float[TILE][TILE + 1];

__device__ __forceinline__ const float* row_of(const float* __restrict__ A, int M, int N, int gr) {
  return A + (long long)gr * N;  // row gr of A (M rows of N floats)
}
// tile[r][c .. c + 3] = the four floats of v, in order.
__device__ __forceinline__ void put(Tile& tile, int r, int c, const float4& v) {
  tile[r][c] = v.x, tile[r][c + 1] = v.y, tile[r][c + 2] = v.z, tile[r][c + 3] = v.w;
}
// Column r of the tile, rows c .. c + 3: four consecutive floats of a row of B.
__device__ __forceinline__ float4 turn(const Tile& tile, int r, int c) {
  return make_float4(tile[c][r], tile[c + 1][r], tile[c + 2][r], tile[c + 3][r]);
}
// A's row gr, columns gc .. gc + 3, those inside A (a float4 where the row is 16-byte aligned and
// all four are inside); zeros for the others.
__device__ __forceinline__ float4 read_quad(const float* __restrict__ A, int M, int N, bool vec, int gr, int gc) {
  float q[VEC] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (gr < M) {
    const float* src = row_of(A, M, N, gr) + gc;
    if (vec && gc < N) return *reinterpret_cast<const float4*>(src);  // N % 4 == 0: all four inside
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      if (gc + j < N) q[j] = src[j];
  }
  return make_float4(q[0], q[1], q[2], q[3]);
}
}  // namespace lb_transpose

extern "C" __global__ void __launch_bounds__(LB_TR_BLOCK_X * LB_TR_ROWS)
transpose(const float* __restrict__ A, float* __restrict__ B, int M, int N) {
  using namespace lb_transpose;
  __shared__ Tile tile;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;  // the tile's corner in A
  const int c = threadIdx.x * VEC, ty = threadIdx.y;
  const bool vec = N % VEC == 0 && M % VEC == 0 && (reinterpret_cast<unsigned long long>(A) & 15) == 0 &&
                   (reinterpret_cast<unsigned long long>(B) & 15) == 0;
  // A whole tile inside A, float4-aligned: every access below is a float4 and needs no bound check.
  // Uniform across the block, so the branches below never diverge a warp.
  const bool whole = vec && row0 + TILE <= M && col0 + TILE <= N;

  // Read: thread (x, y) copies A[row0 + r][col0 + c .. c + 3] for r = y, y + ROWS, ... into
  // tile[r][c ..]. Loops of a constant trip count (k, not r) unroll whole; in a whole tile all
  // PASSES loads are issued before the first is used, the bytes in flight the barrier allows.
  if (whole) {
    float4 v[PASSES];
#pragma unroll
    for (int k = 0; k < PASSES; ++k)
      v[k] = *reinterpret_cast<const float4*>(row_of(A, M, N, row0 + ty + k * ROWS) + col0 + c);
#pragma unroll
    for (int k = 0; k < PASSES; ++k) put(tile, ty + k * ROWS, c, v[k]);
  } else {  // an edge tile, or a shape the float4s do not fit: zeros outside A, never stored below
#pragma unroll
    for (int k = 0; k < PASSES; ++k) put(tile, ty + k * ROWS, c, read_quad(A, M, N, vec, row0 + ty + k * ROWS, col0 + c));
  }
  __syncthreads();

  // Write: row col0 + r of B is column col0 + r of A; its columns row0 + c .. c + 3 are A's rows
  // row0 + c .. c + 3, so the four floats are tile[c .. c + 3][r]. Stores need nothing back, so
  // they issue one after another without waiting; one loop serves both kinds of tile.
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    const int r = ty + k, br = col0 + r, bc = row0 + c;
    const float4 q = turn(tile, r, c);
    float* dst = B + (long long)br * M + bc;
    if (whole) {
      *reinterpret_cast<float4*>(dst) = q;
      continue;
    }
    if (br >= N) continue;
    if (vec && bc < M) {  // M % 4 == 0: all four are inside
      *reinterpret_cast<float4*>(dst) = q;
    } else {
      const float quad[VEC] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int j = 0; j < VEC; ++j)
        if (bc + j < M) dst[j] = quad[j];
    }
  }
}
