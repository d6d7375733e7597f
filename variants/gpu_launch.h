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

// matmul_tiled's launch: tiles of C, columns along x (up to 2^31-1 blocks) and rows along y
// (65535), and the splits of K along z (workloads/matmul/kernels.cu); blocks of LB_MM_THREADS.
struct MatmulGrid {
  unsigned x = 1, y = 1, z = 1;
};

// The most blocks a launch that splits K may have: a tile's splits wait for each other, so all of
// them must be on the GPU at once (two blocks an SM, which the kernel's __launch_bounds__ makes room
// for), and each needs a part of the kernel's workspace (LB_MM_SPLIT_PARTS).
inline long long matmul_split_blocks_max(int sm_count) {
  return std::min<long long>(2LL * sm_count, LB_MM_SPLIT_PARTS);
}

// The splits of K are the choice with the least estimated time, a model of the kernel on an H100
// (docs/results/h100/p15/split-k-sweep.csv; docs/workloads.md#matmul-split-k says how it was fit):
//   t(S) = waves * (2 * BM * BN * K/S flops) / rate  +  (S > 1) * kSplitAddUs,
// where a block alone on its SM computes at kLoneBlockTflops, two sharing one at kPairedBlockTflops
// each, and the splits' parts are stored and added up (each split adds 1/S of its tile, so that
// cost hardly grows with S). S is a power of two (the kernel's slices need it), and the splits all
// fit on the GPU at once (two blocks an SM: they wait for each other). Only a C of fewer tiles than
// one wave (two blocks per SM) is split: that is where the model was fit, and where the SMs idle
// without it; and never into more parts than the kernel's workspace holds (LB_MM_SPLIT_PARTS).
inline MatmulGrid matmul_grid(long long m, long long n, long long k, int sm_count) {
  constexpr double kLoneBlockTflops = 0.207, kPairedBlockTflops = 0.15, kSplitAddUs = 3.5;
  constexpr int kMaxSplits = 16, kSliceK = 16;
  MatmulGrid grid{static_cast<unsigned>((n + LB_MM_BN - 1) / LB_MM_BN),
                  static_cast<unsigned>((m + LB_MM_BM - 1) / LB_MM_BM), 1};
  const long long tiles = 1LL * grid.x * grid.y, slices = (k + kSliceK - 1) / kSliceK;
  if (tiles >= 2LL * sm_count) return grid;
  double best_us = 0;
  for (int splits = 1; splits <= kMaxSplits && splits <= std::max(1LL, slices); splits *= 2) {
    if (splits > 1 && tiles * splits > matmul_split_blocks_max(sm_count)) break;
    const double flops = 2.0 * LB_MM_BM * LB_MM_BN * double((slices + splits - 1) / splits) * kSliceK;
    const long long blocks = tiles * splits;
    const double compute_us = blocks <= sm_count
                                  ? flops / (kLoneBlockTflops * 1e6)
                                  : double((blocks + 2LL * sm_count - 1) / (2LL * sm_count)) * flops /
                                        (kPairedBlockTflops * 1e6);
    const double us = compute_us + (splits > 1 ? kSplitAddUs : 0.0);
    if (splits == 1 || us < best_us) best_us = us, grid.z = static_cast<unsigned>(splits);
  }
  return grid;
}

// Tiles of A for transpose: A's columns along x, its rows along y (65535 tiles of LB_TR_TILE rows).
inline unsigned transpose_grid_x(long long n) { return static_cast<unsigned>((n + LB_TR_TILE - 1) / LB_TR_TILE); }
inline unsigned transpose_grid_y(long long m) { return static_cast<unsigned>((m + LB_TR_TILE - 1) / LB_TR_TILE); }
// Its block: LB_TR_BLOCK_X float4s across a tile row, LB_TR_ROWS rows at a time.
struct TransposeBlock {
  unsigned x = LB_TR_BLOCK_X, y = LB_TR_ROWS;
};

}  // namespace lb
