// Host-side launch arithmetic shared by the GPU layers, so that they launch the same kernel text
// with the same grid and any difference in time is the layer's.
#pragma once
#include <algorithm>

#include "workloads/launch_config.h"

namespace lb {

// Blocks of LB_BLOCK threads for a grid-stride loop over `items`: enough to keep every SM full
// (LB_BLOCKS_PER_SM each), never more than the items need, at least one.
inline unsigned grid_stride_blocks(long long items, int sm_count) {
  const long long needed = std::max(1LL, (items + LB_BLOCK - 1) / LB_BLOCK);
  return static_cast<unsigned>(std::min<long long>(needed, 1LL * sm_count * LB_BLOCKS_PER_SM));
}

// Blocks of LB_BLOCK threads for vector_add and saxpy: one thread per float4, plus one per
// leftover element (n % 4), at least one block.
inline unsigned flat_blocks(long long n) {
  const long long threads = n / 4 + n % 4;
  return static_cast<unsigned>(std::max(1LL, (threads + LB_BLOCK - 1) / LB_BLOCK));
}

// Tiles of C for matmul_tiled: columns along x (up to 2^31-1 blocks), rows along y (65535).
inline unsigned matmul_grid_x(long long n) { return static_cast<unsigned>((n + LB_MM_BN - 1) / LB_MM_BN); }
inline unsigned matmul_grid_y(long long m) { return static_cast<unsigned>((m + LB_MM_BM - 1) / LB_MM_BM); }

// Tiles of A for transpose: A's columns along x, its rows along y (65535 tiles of LB_TR_TILE rows).
inline unsigned transpose_grid_x(long long n) { return static_cast<unsigned>((n + LB_TR_TILE - 1) / LB_TR_TILE); }
inline unsigned transpose_grid_y(long long m) { return static_cast<unsigned>((m + LB_TR_TILE - 1) / LB_TR_TILE); }

}  // namespace lb
