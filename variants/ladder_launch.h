// Host-side launch arithmetic for ladder rungs (workloads/ladder.h), shared by every layer that
// runs rungs (runtime, driver), so that the same rung gets the same grid whichever API launches it.
#pragma once
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "workloads/ladder.h"

namespace lb {

// A matmul rung's grid: one block per tile_m x tile_n tile of C, columns along x, rows along y.
struct RungGrid {
  unsigned x = 1, y = 1;
};
inline RungGrid matmul_rung_grid(const MatmulLaunch& l, long long m, long long n) {
  return {static_cast<unsigned>((n + l.tile_n - 1) / l.tile_n), static_cast<unsigned>((m + l.tile_m - 1) / l.tile_m)};
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
