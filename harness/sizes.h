// Parsing of --size values: "1000", "2^20"; for a matrix workload "MxN" or one number for a square,
// for a product "MxNxK" or one number for a cube (the workload's SizeForm).
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
std::string human_bytes(double bytes);                                 // "12.0 GiB"

}  // namespace lb
