// Host-side launch arithmetic for ladder rungs (workloads/ladder.h), shared by every layer that
// runs rungs (runtime, driver), so that the same rung gets the same grid whichever API launches it.
#pragma once
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "workloads/ladder.h"

namespace lb {

// How many splits of K a matmul rung's grid has along z: 1 unless the rung splits K
// (MatmulLaunch::split_k, rung 10). Such a rung runs one block per SM (its registers fill the
// register file), and the point of splitting is that no SM idles for want of a block: S is the
// largest power of two with tiles x S <= SMs, one wave of blocks, each with 1/S of K's slices
// (1024^3, 32 tiles of 128x256 on 132 SMs: S = 4, 128 blocks of 8 slices; 512^3, 8 tiles: S = 16).
// Not more: past one wave, doubling S halves each block's work but about doubles the waves, and
// every split costs a partial tile stored and added (1024^3 with S = 8: 256 blocks, 2 waves of 4
// slices, no better than 1 wave of 8; 2048^3, 128 tiles: S = 2 would be 2 waves of half of K). So a
// C with more than half a wave of tiles (2048^3, 4096^3: 512 tiles) is not split: S = 1. S is also
// at most max_splits, at most K's slices (every split has one), and tiles x S at most split_parts,
// the kernel's workspace (the kernel traps a launch that needs more). No SM count: no split.
inline unsigned matmul_rung_splits(const MatmulLaunch& l, long long m, long long n, long long k, int sm_count) {
  const long long tiles = ((n + l.tile_n - 1) / l.tile_n) * ((m + l.tile_m - 1) / l.tile_m);
  if (!l.split_k || sm_count <= 0 || tiles < 1) return 1;
  const long long slices = (k + std::max(1u, l.slice_k) - 1) / std::max(1u, l.slice_k);
  const long long most = std::min({1LL * sm_count, 1LL * l.split_parts, tiles * std::min(1LL * l.max_splits, slices)});
  long long splits = 1;
  while (tiles * splits * 2 <= most) splits *= 2;
  return static_cast<unsigned>(splits);
}

// A matmul rung's grid: one block per tile_m x tile_n tile of C, columns along x, rows along y, and
// the splits of K along z (matmul_rung_splits: 1 for a rung that does not split K).
struct RungGrid {
  unsigned x = 1, y = 1, z = 1;
};
inline RungGrid matmul_rung_grid(const MatmulLaunch& l, long long m, long long n, long long k, int sm_count) {
  return {static_cast<unsigned>((n + l.tile_n - 1) / l.tile_n), static_cast<unsigned>((m + l.tile_m - 1) / l.tile_m),
          matmul_rung_splits(l, m, n, k, sm_count)};
}

// Blocks of a reduce rung's pass over n elements: one per block x items_per_thread elements, at
// most max_blocks_per_sm x SMs when the rung sets it (a grid-stride kernel), at least one.
inline unsigned reduce_rung_blocks(const ReduceLaunch& l, long long n, int sm_count) {
  const long long per_block = 1LL * l.block * std::max(1u, l.items_per_thread);
  long long blocks = std::max(1LL, (n + per_block - 1) / per_block);
  if (l.max_blocks_per_sm > 0) blocks = std::min(blocks, 1LL * l.max_blocks_per_sm * std::max(1, sm_count));
  return static_cast<unsigned>(blocks);
}

// A reduce rung runs in passes: x -> partials -> partials ... until one block is left, whose one
// partial is the sum. Two scratch buffers take turns (a pass never reads what it writes): pass i
// reads x (i = 0) or scratch[(i - 1) % 2], and writes the output (the last pass) or scratch[i % 2].
struct ReducePass {
  long long n = 0;      // elements read
  unsigned blocks = 1;  // the grid, = elements written
  int in = -1;          // -1: x; else the scratch buffer read
  int out = -1;         // -1: the output; else the scratch buffer written
};
struct ReducePlan {
  std::vector<ReducePass> passes;
  std::size_t scratch_floats[2] = {0, 0};  // what each scratch buffer must hold
};

inline ReducePlan reduce_rung_plan(const ReduceLaunch& l, long long n, int sm_count) {
  ReducePlan plan;
  for (int i = 0;; ++i) {
    ReducePass pass{n, reduce_rung_blocks(l, n, sm_count), i == 0 ? -1 : (i - 1) % 2, -1};
    if (pass.blocks > 1) {
      if (pass.blocks >= n) throw std::logic_error("reduce rung launch shape does not shrink its input");
      pass.out = i % 2;
      plan.scratch_floats[pass.out] = std::max<std::size_t>(plan.scratch_floats[pass.out], pass.blocks);
    }
    plan.passes.push_back(pass);
    if (pass.blocks == 1) return plan;
    n = pass.blocks;
  }
}

// The dynamic shared memory a kernel may use without raising its limit.
inline constexpr unsigned kDefaultDynamicSmemLimit = 48 * 1024;

}  // namespace lb
