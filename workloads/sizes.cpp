#include "workloads/sizes.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace lb {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// `digits` is all digits (the callers check): its value, or UsageError above INT64_MAX. Any number
// of digits, leading zeros included: 4611686018427387904 (the label of 2^62) reads back.
std::int64_t parse_digits(const std::string& digits, const std::string& named) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) throw UsageError(named + " is too large");
  return value;
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
    if (b <= 1) {
      value = (b == 1 || e == 0) ? 1 : 0;  // 1^e and 0^0 are 1, 0^e is 0: no loop of e steps
    } else {
      value = 1;
      for (std::int64_t i = 0; i < e; ++i) {  // b >= 2 overflows within 63 steps
        if (value > std::numeric_limits<std::int64_t>::max() / b) throw UsageError(named + " is too large");
        value *= b;
      }
    }
  } else {
    if (!text.empty() && text[0] == '-') throw UsageError(named + " is negative; sizes must be at least 1");
    if (!all_digits(text)) throw UsageError(named + " is not a number (expected e.g. 1000 or 2^20)");
    value = parse_digits(text, named);
  }
  if (value < 1) throw UsageError(named + " is 0; sizes must be at least 1");
  return value;
}

constexpr const char* kAboveMaxDimension = " is above 2^31 - 1, the largest matrix dimension the layers take";

}  // namespace

std::int64_t parse_count(const std::string& text) { return parse_count_named(text, "size '" + one_line(text) + "'"); }

int dimensions_written(const std::string& text) {
  return 1 + static_cast<int>(std::count(text.begin(), text.end(), 'x'));
}

Shape parse_shape(const std::string& text, const Workload& workload) {
  const std::string size = "size '" + one_line(text) + "'";
  const SizeForm form = workload.size_form();
  const int dims_taken = dimension_count(form);
  if (text.find('x') == std::string::npos) {
    const std::int64_t n = parse_count(text);
    if (form == SizeForm::kCount) return Shape{1, n, 1};
    if (n > kMaxMatrixDimension)
      throw UsageError(size + " for " + workload.name() + " (one number is a " +
                       (form == SizeForm::kMatrix ? "square" : "cube") + ")" + kAboveMaxDimension +
                       "; pick workloads with --workload");
    return form == SizeForm::kMatrix ? Shape{n, n, 1} : Shape{n, n, n};
  }
  const std::string written = dims_taken == 2 ? "MxN (expected e.g. 512x1024)" : "MxNxK (expected e.g. 512x1024x256)";
  if (form == SizeForm::kCount)
    throw UsageError(size + " is " + (dimensions_written(text) == 2 ? "MxN" : "MxNxK") + ", but workload " +
                     workload.name() + " takes one number");
  std::int64_t dims[3] = {1, 1, 1};
  std::size_t start = 0;
  for (int d = 0; d < dims_taken; ++d) {
    const bool last = d + 1 == dims_taken;
    const std::size_t end = last ? text.size() : text.find('x', start);
    if (end == std::string::npos || (last && text.find('x', start) != std::string::npos))
      throw UsageError(size + " is not " + written);
    const std::string part = text.substr(start, end - start);
    const std::string dim(1, "MNK"[d]);
    if (part.empty()) throw UsageError(size + ": " + dim + " is missing (expected e.g. " + written.substr(written.find("e.g. ") + 5));
    dims[d] = parse_count_named(part, size + ": " + dim + " '" + one_line(part) + "'");
    if (dims[d] > kMaxMatrixDimension)
      throw UsageError(size + ": " + dim + " = " + std::to_string(dims[d]) + kAboveMaxDimension);
    start = end + 1;
  }
  return Shape{dims[0], dims[1], dims[2]};
}

}  // namespace lb
