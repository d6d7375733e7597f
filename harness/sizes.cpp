#include "harness/sizes.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace lb {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::int64_t parse_digits(const std::string& digits, const std::string& named) {
  if (digits.size() > 18) throw UsageError(named + " is too large");
  return std::stoll(digits);
}

// `text` as a count >= 1; `named` is how messages name it: "size '1000'", or for one dimension of
// an MxNxK size "size '64x0x64': N '0'", so that the message names the value the user typed.
std::int64_t parse_count_named(const std::string& text, const std::string& named) {
  std::int64_t value = 0;
  if (const auto caret = text.find('^'); caret != std::string::npos) {
    const std::string base = text.substr(0, caret), exponent = text.substr(caret + 1);
    if (!all_digits(base) || !all_digits(exponent))
      throw UsageError(named + " is not a number (expected e.g. 1000 or 2^20)");
    const std::int64_t b = parse_digits(base, named), e = parse_digits(exponent, named);
    value = 1;
    for (std::int64_t i = 0; i < e; ++i) {
      if (b != 0 && value > std::numeric_limits<std::int64_t>::max() / std::max<std::int64_t>(b, 1))
        throw UsageError(named + " is too large");
      value *= b;
    }
  } else {
    if (!text.empty() && text[0] == '-') throw UsageError(named + " is negative; sizes must be at least 1");
    if (!all_digits(text)) throw UsageError(named + " is not a number (expected e.g. 1000 or 2^20)");
    value = parse_digits(text, named);
  }
  if (value < 1) throw UsageError(named + " is 0; sizes must be at least 1");
  return value;
}

}  // namespace

std::int64_t parse_count(const std::string& text) { return parse_count_named(text, "size '" + text + "'"); }

Shape parse_shape(const std::string& text, const Workload& workload) {
  if (text.find('x') == std::string::npos) {
    const std::int64_t n = parse_count(text);
    return workload.takes_matrix_sizes() ? Shape{n, n, n} : Shape{1, n, 1};
  }
  if (!workload.takes_matrix_sizes())
    throw UsageError("size '" + text + "' is MxNxK, but workload " + workload.name() + " takes one number");
  std::int64_t dims[3];
  std::size_t start = 0;
  for (int d = 0; d < 3; ++d) {
    const std::size_t end = d < 2 ? text.find('x', start) : text.size();
    if (end == std::string::npos || (d == 2 && text.find('x', start) != std::string::npos))
      throw UsageError("size '" + text + "' is not MxNxK (expected e.g. 512x1024x256)");
    const std::string part = text.substr(start, end - start);
    const std::string dim(1, "MNK"[d]);
    if (part.empty()) throw UsageError("size '" + text + "': " + dim + " is missing (expected e.g. 512x1024x256)");
    dims[d] = parse_count_named(part, "size '" + text + "': " + dim + " '" + part + "'");
    // The kernels and BLAS take a matrix dimension as an int.
    if (dims[d] > std::numeric_limits<int>::max())
      throw UsageError("size '" + text + "': " + dim + " = " + std::to_string(dims[d]) +
                       " is above 2^31 - 1, the largest matrix dimension the layers take");
    start = end + 1;
  }
  return Shape{dims[0], dims[1], dims[2]};
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) {
    bytes /= 1024.0;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", bytes, units[u]);
  return text;
}

}  // namespace lb
