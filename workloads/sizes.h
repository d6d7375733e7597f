// Parsing of sizes: "1000", "2^20"; for a matrix workload "MxN" or one number for a square, for a
// product "MxNxK" or one number for a cube (the workload's SizeForm). The one parser of every size
// text: --size, a lab's sizes and a workload folder's default_sizes, with one set of limits (a count
// up to 2^63 - 1, a matrix dimension up to 2^31 - 1). Here, below the harness, because a folder's
// workload (variants/python/workload_folder.cpp) parses its own default sizes with it.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

#include "common/usage_error.h"
#include "workloads/workload.h"

namespace lb {

// The kernels and BLAS take a matrix dimension as an int.
inline constexpr std::int64_t kMaxMatrixDimension = std::numeric_limits<int>::max();

std::int64_t parse_count(const std::string& text);                    // >= 1, or UsageError
Shape parse_shape(const std::string& text, const Workload& workload);  // UsageError when bad
int dimensions_written(const std::string& text);                      // "2^20": 1, "4x8": 2, "4x8x2": 3

}  // namespace lb
