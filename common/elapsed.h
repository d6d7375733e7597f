// Host wall-clock time since a point, in milliseconds: one-time costs (compiles, captures, context
// creation) and end-to-end times.
#pragma once
#include <chrono>

namespace lb {

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace lb
