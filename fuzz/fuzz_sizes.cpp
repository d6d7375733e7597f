// libFuzzer target for the --size parser (workloads/sizes.cpp), linked with the real workloads.
//
// Each input is one size text, exactly as the bytes arrive (a command-line argument or a string in
// a lab spec). It goes through parse_count and through parse_shape for every registered workload.
// The property (docs/fuzzing.md):
//   - parse_count returns the value an independent 128-bit reference parser gives (digits, or
//     digits^digits, at least 1 and at most 2^63-1), or throws lb::UsageError, and refuses no
//     value the reference accepts;
//   - parse_shape returns dims >= 1 (m = k = 1 for vector workloads; a cube for one number on
//     matmul) that round-trip through Workload::size_label, with finite bytes/flops/host bytes; and,
//     for shapes that pass the harness's host-memory gate (plan.cpp refuses host_bytes above the
//     machine's memory; we use 2^60 bytes, more than any machine), the element counts the code
//     computes in int64 (m*k, k*n, m*n, output_elements, launches) do not overflow;
//   - a matrix workload's dimensions are at most 2^31 - 1 (the layers take an int);
//   - every lb::UsageError message is non-empty and one line (a line break or NUL typed in a size
//     is shown escaped);
//   - anything else (another exception, a crash, an ASan/UBSan report, a hang) is a finding.
//
// What it found (fuzz/findings/README.md), fixed in b6bd946: a hang on a base of 0 or 1 with a huge
// exponent, messages of several lines, 19-digit values refused though 2^62 is accepted, a matmul
// cube above 2^31 - 1 whose label was refused. The reproducers in fuzz/findings/sizes/ are seeds of
// every run (scripts/fuzz.sh): a regression is a finding again.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <exception>
#include <limits>
#include <string>

#include "harness/sizes.h"
#include "workloads/workload.h"

namespace {

// Printable ASCII as is, every other byte as \xNN: one line, whatever the input holds.
std::string escaped(const std::string& text) {
  std::string shown;
  for (unsigned char c : text) {
    char buf[8];
    if (c >= 0x20 && c < 0x7f && c != '\\') shown += static_cast<char>(c);
    else std::snprintf(buf, sizeof buf, "\\x%02x", c), shown += buf;
  }
  return shown;
}

[[noreturn]] void finding(const std::string& what, const std::string& input) {
  std::fprintf(stderr, "\nFINDING: %s\n  input: \"%s\"\n", escaped(what).c_str(), escaped(input).c_str());
  std::abort();
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Reference parser: what the documented grammar says the value is, in 128-bit arithmetic. `ok`
// false when the text is not digits or digits^digits, or when the value is 0 or above INT64_MAX.
// Any number of digits, leading zeros included.
struct Expected {
  bool ok = false;
  std::int64_t value = 0;
};

constexpr unsigned __int128 kMax = static_cast<unsigned __int128>(INT64_MAX);

// The digits' value, saturated at kMax + 1 ("too large"); false when not all digits.
bool digits_value(const std::string& s, unsigned __int128* out) {
  if (!all_digits(s)) return false;
  unsigned __int128 v = 0;
  for (char c : s) {
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > kMax) v = kMax + 1;
  }
  *out = v;
  return true;
}

Expected reference_count(const std::string& text) {
  Expected r;
  unsigned __int128 value = 0;
  const auto caret = text.find('^');
  if (caret == std::string::npos) {
    if (!digits_value(text, &value)) return r;
  } else {
    unsigned __int128 b = 0, e = 0;
    if (!digits_value(text.substr(0, caret), &b) || !digits_value(text.substr(caret + 1), &e)) return r;
    if (b > kMax || e > kMax) return r;  // parse_count reads each part as an int64 first
    if (b <= 1) value = (b == 1 || e == 0) ? 1 : 0;
    else {
      value = 1;
      for (unsigned __int128 i = 0; i < e && value <= kMax; ++i) value *= b;  // at most 64 steps
    }
  }
  if (value < 1 || value > kMax) return r;
  r.ok = true;
  r.value = static_cast<std::int64_t>(value);
  return r;
}

std::size_t line_breaks(const std::string& s) {
  std::size_t count = 0;
  for (char c : s) count += (c == '\n' || c == '\r');
  return count;
}

void check_usage_error(const lb::UsageError& e, const std::string& text, const char* where) {
  const std::string message = e.what();
  if (message.empty()) finding(std::string(where) + ": UsageError with an empty message", text);
  if (line_breaks(message) > 0) finding(std::string(where) + ": UsageError message is not one line: \"" + message + "\"", text);
}

bool fits_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out;
  return !__builtin_mul_overflow(a, b, &out);
}

void check_count(const std::string& text) {
  const Expected expected = reference_count(text);
  std::int64_t value = 0;
  try {
    value = lb::parse_count(text);
  } catch (const lb::UsageError& e) {
    check_usage_error(e, text, "parse_count");
    if (expected.ok)
      finding("parse_count rejected a valid size (expected " + std::to_string(expected.value) + ")", text);
    return;
  }
  if (value < 1) finding("parse_count returned " + std::to_string(value) + " (< 1)", text);
  if (!expected.ok) finding("parse_count accepted an invalid size as " + std::to_string(value), text);
  if (value != expected.value)
    finding("parse_count returned " + std::to_string(value) + ", expected " + std::to_string(expected.value), text);
}

void check_shape(const std::string& text, const lb::Workload& w) {
  const std::string where = "parse_shape(" + w.name() + ")";
  lb::Shape s;
  try {
    s = lb::parse_shape(text, w);
  } catch (const lb::UsageError& e) {
    check_usage_error(e, text, where.c_str());
    return;
  }
  const std::string dims = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (s.m < 1 || s.n < 1 || s.k < 1) finding(where + " returned a dimension < 1: " + dims, text);
  const bool has_x = text.find('x') != std::string::npos;
  const lb::SizeForm form = w.size_form();
  if (form == lb::SizeForm::kCount && (s.m != 1 || s.k != 1 || has_x))
    finding(where + " gave a vector workload the shape " + dims, text);
  if (form == lb::SizeForm::kMatrix && (s.k != 1 || (!has_x && s.m != s.n)))
    finding(where + " gave a matrix workload the shape " + dims, text);
  if (form == lb::SizeForm::kProduct && !has_x && !(s.m == s.n && s.n == s.k))
    finding(where + " read one number as a non-cube " + dims, text);
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  if (form != lb::SizeForm::kCount && (s.m > kIntMax || s.n > kIntMax || s.k > kIntMax))
    finding(where + " accepted a matrix dimension above 2^31 - 1: " + dims, text);
  // The label the harness prints and writes must read back as the same shape.
  const std::string label = w.size_label(s);
  try {
    if (!(lb::parse_shape(label, w) == s)) finding(where + " label '" + label + "' reads back differently", text);
  } catch (const lb::UsageError& e) {
    finding(where + " label '" + label + "' does not parse back: " + e.what(), text);
  }
  const double bytes = w.bytes_moved(s), flops = w.flops(s), host = w.host_bytes(s);
  if (!std::isfinite(bytes) || !std::isfinite(flops) || !std::isfinite(host) || bytes < 0 || flops < 0 || host <= 0)
    finding(where + " bytes/flops/host bytes not finite and >= 0 for " + dims, text);
  // plan.cpp refuses sizes whose host_bytes exceed the machine's memory before any int64 count is
  // formed; past that gate, the counts make_problem, reference and verify form must fit.
  constexpr double kHostGate = 1152921504606846976.0;  // 2^60 bytes
  if (host > kHostGate) return;
  if (!fits_mul(s.m, s.k) || !fits_mul(s.k, s.n) || !fits_mul(s.m, s.n))
    finding(where + " element count overflows int64 for " + dims + " (host bytes " + std::to_string(host) + ")", text);
  const std::int64_t out = w.output_elements(s);  // UBSan reports a signed overflow in here
  if (out < 1 || static_cast<double>(out) * 4.0 > host)
    finding(where + " output_elements " + std::to_string(out) + " inconsistent with host bytes for " + dims, text);
  if (w.launches(s) < 0) finding(where + " negative launch count for " + dims, text);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (lb::all_workloads().empty()) {
    std::fprintf(stderr, "fuzz_sizes: no workloads registered (link problem)\n");
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    check_count(text);
    for (const lb::Workload* w : lb::all_workloads()) check_shape(text, *w);
  } catch (const std::exception& e) {
    finding(std::string("unexpected exception: ") + e.what(), text);
  } catch (...) {
    finding("unexpected non-std exception", text);
  }
  return 0;
}
