// libFuzzer target for the --size parser (harness/sizes.cpp), linked with the real workloads.
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
//   - every lb::UsageError message is non-empty and one line;
//   - anything else (another exception, a crash, an ASan/UBSan report, a hang) is a finding.
//
// Known findings, reported and not yet fixed in harness/sizes.cpp, are tolerated unless
// LB_FUZZ_STRICT=1 is set (scripts/fuzz.sh --strict), so that CI catches new bugs only:
//   K1 a base of 0 or 1 with a huge exponent ("1^999999999999999999") loops once per unit of the
//      exponent: a hang (fuzz/findings/sizes-hang-1-pow-huge.txt);
//   K2 the message quotes the input as is, so a size containing a line break gives a message of
//      several lines (fuzz/findings/sizes-newline-in-message.txt). Tolerated: line breaks in the
//      message's copies of the input (or of one of its 'x'-separated parts), none elsewhere;
//   K3 a run of more than 18 digits is refused as "too large" even when its value fits in int64
//      (10^18 to 2^63-1, or leading zeros: "0000000000000000001"), while "2^62" is accepted; so
//      the label the harness prints for such a shape does not parse back
//      (fuzz/findings/sizes-label-19-digits.txt). Tolerated: a refusal, or a label that does not
//      parse back, where the text has a run of more than 18 digits;
//   K4 (the working tree's sizes.cpp of 2026-11-22, not committed yet) MxNxK refuses a dimension
//      above 2^31 - 1, but one number for matmul (a cube) is not checked: "3000000000" gives
//      3000000000^3, whose label "3000000000x3000000000x3000000000" is refused
//      (fuzz/findings/sizes-cube-above-int.txt). Tolerated: a cube above 2^31 - 1 whose label is
//      refused.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "harness/sizes.h"
#include "workloads/workload.h"

namespace {

bool g_strict = false;
const char* g_known_dir = nullptr;  // $LB_FUZZ_KNOWN_DIR: where the first input of each known finding goes

// A tolerated known finding: the first input that hit it is written to $LB_FUZZ_KNOWN_DIR/<id>, so
// that a run can say which known findings it met (scripts/fuzz.sh prints them).
void note_known(int id, const std::string& input) {
  static bool noted[8] = {};
  if (!g_known_dir || id < 0 || id >= 8 || noted[id]) return;
  noted[id] = true;
  const std::string path = std::string(g_known_dir) + "/K" + std::to_string(id);
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(input.data(), 1, input.size(), f);
    std::fclose(f);
  }
}

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
// Any number of digits (leading zeros too) is fine here; the parser's 18-digit limit is K3.
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

// K1: a piece "B^E" with B in {0, 1} (leading zeros allowed) and E large makes parse_count loop E
// times. Only pieces parse_count would see: the whole text, or its 'x'-separated parts.
bool known_hang_piece(const std::string& piece) {
  const auto caret = piece.find('^');
  if (caret == std::string::npos) return false;
  const std::string base = piece.substr(0, caret), exponent = piece.substr(caret + 1);
  if (!all_digits(base) || !all_digits(exponent) || base.size() > 18 || exponent.size() > 18) return false;
  const auto b = std::stoll(base), e = std::stoll(exponent);
  return b <= 1 && e > (1 << 20);
}

bool known_hang(const std::string& text) {
  if (known_hang_piece(text)) return true;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('x', start);
    if (known_hang_piece(text.substr(start, end == std::string::npos ? std::string::npos : end - start)))
      return true;
    if (end == std::string::npos) return false;
    start = end + 1;
  }
}

std::size_t line_breaks(const std::string& s) {
  std::size_t count = 0;
  for (char c : s) count += (c == '\n' || c == '\r');
  return count;
}

// Whether every line break in the message lies inside a copy of the input, or of one of its
// 'x'-separated parts (the messages quote the size, and for MxNxK the bad dimension). A copy ends at
// the input's first NUL, what() being a C string (part of K2).
bool breaks_only_in_quotes(const std::string& message, const std::string& text) {
  std::vector<std::string> quotes{text};
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find('x', start);
    quotes.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  for (std::size_t i = 0, count = quotes.size(); i < count; ++i)
    if (const auto nul = quotes[i].find('\0'); nul != std::string::npos) quotes.push_back(quotes[i].substr(0, nul));
  std::vector<bool> covered(message.size(), false);
  for (const std::string& q : quotes) {
    if (q.empty()) continue;
    for (std::size_t at = message.find(q); at != std::string::npos; at = message.find(q, at + 1))
      std::fill(covered.begin() + at, covered.begin() + at + q.size(), true);
  }
  for (std::size_t i = 0; i < message.size(); ++i)
    if ((message[i] == '\n' || message[i] == '\r') && !covered[i]) return false;
  return true;
}

void check_usage_error(const lb::UsageError& e, const std::string& text, const char* where) {
  const std::string message = e.what();
  if (message.empty()) finding(std::string(where) + ": UsageError with an empty message", text);
  const std::size_t breaks = line_breaks(message);
  if (breaks > 0 && !g_strict && breaks_only_in_quotes(message, text)) {  // K2
    note_known(2, text);
    return;
  }
  if (breaks > 0) finding(std::string(where) + ": UsageError message is not one line: \"" + message + "\"", text);
}

bool has_long_digit_run(const std::string& s) {
  std::size_t run = 0;
  for (char c : s) {
    run = (c >= '0' && c <= '9') ? run + 1 : 0;
    if (run > 18) return true;
  }
  return false;
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
    if (expected.ok) {
      if (g_strict || !has_long_digit_run(text))  // K3: 19 digits or more refused as "too large"
        finding("parse_count rejected a valid size (expected " + std::to_string(expected.value) + ")", text);
      note_known(3, text);
    }
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
  if (!w.takes_matrix_sizes() && (s.m != 1 || s.k != 1 || has_x))
    finding(where + " gave a vector workload the shape " + dims, text);
  if (w.takes_matrix_sizes() && !has_x && !(s.m == s.n && s.n == s.k))
    finding(where + " read one number as a non-cube " + dims, text);
  // The label the harness prints and writes must read back as the same shape.
  const std::string label = w.size_label(s);
  try {
    if (!(lb::parse_shape(label, w) == s)) finding(where + " label '" + label + "' reads back differently", text);
  } catch (const lb::UsageError& e) {
    const bool k3 = has_long_digit_run(label);
    const bool k4 = w.takes_matrix_sizes() && !has_x && s.m > std::numeric_limits<int>::max();
    if (g_strict || !(k3 || k4))
      finding(where + " label '" + label + "' does not parse back: " + e.what(), text);
    note_known(k3 ? 3 : 4, text);
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
  const char* strict = std::getenv("LB_FUZZ_STRICT");
  g_strict = strict && *strict && *strict != '0';
  g_known_dir = std::getenv("LB_FUZZ_KNOWN_DIR");
  if (lb::all_workloads().empty()) {
    std::fprintf(stderr, "fuzz_sizes: no workloads registered (link problem)\n");
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!g_strict && known_hang(text)) {  // K1: not run, it would hang
    note_known(1, text);
    return 0;
  }
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
