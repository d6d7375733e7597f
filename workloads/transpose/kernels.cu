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
// Why this shape (LB_TR_TILE x LB_TR_ROWS in launch_config.h, 64 x 8). A block of TILE x ROWS
// threads, each moving TILE / ROWS elements. The only loads in flight are those issued before the
// barrier, and at HBM3's rate an SM needs tens of KB in flight to cover DRAM latency: the classic
// 32 x 8 threads on a 32 x 32 tile issue 4 loads each, 32 KB per SM at 2048 threads; 64 x 8 on a
// 64 x 64 tile issues 8 each, twice that, and touches A and B in 256-byte runs of a row instead
// of 128, half the DRAM row switches per byte. A tile is 64 x 65 floats (16.6 KB), four blocks
// (2048 threads) an SM use 66 KB of shared memory. This is the reasoned choice; which shape is
// fastest on a given GPU is a measurement, and changing it is the two numbers in launch_config.h.
#include "workloads/launch_config.h"

namespace lb_transpose {
constexpr int TILE = LB_TR_TILE, ROWS = LB_TR_ROWS;
static_assert(TILE % ROWS == 0, "each thread moves TILE / ROWS whole rows of the tile");
}  // namespace lb_transpose

extern "C" __global__ void transpose(const float* __restrict__ A, float* __restrict__ B, int M, int N) {
  using namespace lb_transpose;
  __shared__ float tile[TILE][TILE + 1];
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;  // the tile's corner in A
  const int tx = threadIdx.x, ty = threadIdx.y;

  // Read: thread (tx, ty) copies A[row0 + r][col0 + tx] for r = ty, ty + ROWS, ... into tile[r][tx].
  const int a_col = col0 + tx;
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    const int r = ty + k;
    if (row0 + r < M && a_col < N) tile[r][tx] = A[(long long)(row0 + r) * N + a_col];
  }
  __syncthreads();

  // Write: row col0 + r of B is column col0 + r of A; its column row0 + tx is A's row row0 + tx.
  const int b_col = row0 + tx;
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    const int r = ty + k;
    if (col0 + r < N && b_col < M) B[(long long)(col0 + r) * M + b_col] = tile[tx][r];
  }
}
