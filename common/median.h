// The median of a set of timings: the figure each case and each ceiling reports.
#pragma once
#include <algorithm>
#include <vector>

namespace lb {

// 0 for an empty set; the mean of the two middle values for an even count.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace lb
