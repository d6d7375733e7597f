// One number formatted by a printf format ("%.1f GB/s"), as a string: for the one-line messages
// and reports that put a figure into text.
#pragma once
#include <cstdio>
#include <string>

namespace lb {

inline std::string format_number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace lb
