// What a student reads when a lab check fails: the first wrong element (index, got, expected; row
// and column for matmul) and, where the pattern of wrong elements is clear, its likely cause.
// Pure functions of host arrays, so each rule is tested without a GPU (tests/test_lab.cpp).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace lb::lab {

// got against the workload's reference, element by element, with the workload's tolerance.
// `start` is what the output held before the run (NaN poison, zeros, or saxpy's y): an element
// still holding it was never written. Empty when every element passes; else one line, e.g.
// "element 1000000 is NaN, expected 0.8125 — elements from 1000000 on were never written (still
// the poison): does your grid cover n?".
std::string explain_result(const Workload& workload, const Shape& shape, std::span<const float> got,
                           std::span<const float> start, const Reference& reference);

// One size's outcome, for the hint across sizes.
struct SizeOutcome {
  Shape shape;
  bool passed = false;
};
// "wrong only at sizes that are not a multiple of the block size (256): ..." when every failed
// size is not a multiple of the block (n; matmul: N of block_x or M of block_y) and a size that
// is one passed; else empty.
std::string hint_across_sizes(const std::vector<SizeOutcome>& outcomes, bool matrix, unsigned block_x,
                              unsigned block_y);

}  // namespace lb::lab
