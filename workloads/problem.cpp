#include "workloads/problem.h"

#include <cstdio>

namespace lb {
namespace {
// splitmix64: a well-mixed 64-bit hash of a counter.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

void fill_random(std::span<float> out, std::uint64_t seed, std::uint64_t stream) {
  const std::uint64_t key = mix(seed ^ mix(stream + 0x51ED27u));
  const auto count = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint64_t bits = mix(key + static_cast<std::uint64_t>(i));
    const float unit = static_cast<float>(bits >> 40) * 0x1.0p-24f;  // [0, 1) on 24 bits
    const float magnitude = 0.25f + 0.75f * unit;
    out[i] = (bits & 1u) ? -magnitude : magnitude;
  }
}

HostBuffer random_vector(std::int64_t count, std::uint64_t seed, std::uint64_t stream) {
  HostBuffer v(static_cast<std::size_t>(count));
  fill_random(v, seed, stream);
  return v;
}

float random_scalar(std::uint64_t seed, std::uint64_t stream, float lo, float hi) {
  const std::uint64_t bits = mix(mix(seed ^ 0xA5A5u) + stream);
  return lo + (hi - lo) * (static_cast<float>(bits >> 40) * 0x1.0p-24f);
}

HostBuffer poisoned(std::int64_t count) {
  HostBuffer v(static_cast<std::size_t>(count));
  fill_nan(v);
  return v;
}

void fill_nan(std::span<float> out) {
  const auto count = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = std::numeric_limits<float>::quiet_NaN();
}

void parallel_copy(std::span<const float> src, std::span<float> dst) {
  const auto count = static_cast<std::int64_t>(src.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) dst[i] = src[i];
}

Verdict make_verdict(const ElementCheck& check, double tolerance, const std::string& what) {
  Verdict v;
  v.max_rel_error = check.max_rel_error;
  v.tolerance = tolerance;
  v.passed = check.worst >= 0 && check.max_rel_error <= tolerance;
  if (check.worst < 0) {
    v.detail = "no elements to check";
  } else if (!v.passed) {
    char line[256];
    std::snprintf(line, sizeof line, "%s %lld: got %.9g, expected %.9g (relative error %.3g > tolerance %.3g)",
                  what.c_str(), static_cast<long long>(check.worst), check.worst_got, check.worst_ref,
                  check.max_rel_error, tolerance);
    v.detail = line;
  }
  return v;
}

}  // namespace lb
