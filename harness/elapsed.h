// Host wall-clock time since a point, in milliseconds: the one-time costs and end-to-end times.
#pragma once
#include <chrono>

namespace lb {

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace lb
