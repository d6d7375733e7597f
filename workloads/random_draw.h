// The one random generator of inputs, for the host (fill_random, problem.h) and the device
// (fill_random_on_device, fill_random.h): the same arithmetic compiled by g++ and by nvcc, so the
// two give the same floats bit for bit. Counter-based (splitmix64 of key + index): any element is
// drawn alone, in any order, on any thread.
//
// Exact in any evaluation order: every value is a whole number below 2^24 (exact in fp32) times a
// power of two, so no contraction into an FMA, no rounding mode and no -march choice changes it.
#pragma once
#include <cstdint>

#ifndef LB_HOST_DEVICE  // (variants/thrust/thrust_layer.h defines the same)
#if defined(__CUDACC__)
#define LB_HOST_DEVICE __host__ __device__
#else
#define LB_HOST_DEVICE
#endif
#endif

namespace lb {

// What random inputs are drawn from.
enum class Draw {
  kUnit,      // magnitudes in [0.25, 1) on a grid of 2^-24, random signs: never zero, never all
              // equal, mean zero
  kIntegers,  // whole numbers 1..255 with random signs: a sum of them is exact in fp32 in any
              // order (reduce; docs/workloads.md, "Sums")
};

namespace random_draw {

// splitmix64: a well-mixed 64-bit hash of a counter.
LB_HOST_DEVICE constexpr std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The key of one buffer's values: a seed and a stream (which buffer of the problem). Computed on
// the host; the device fill gets it by value, as a kernel argument, and it is never stored in
// device memory (lab/child/fresh_inputs.h says why that matters).
LB_HOST_DEVICE constexpr std::uint64_t stream_key(std::uint64_t seed, std::uint64_t stream) {
  return mix(seed ^ mix(stream + 0x51ED27u));
}

// Element `index` of the buffer keyed `key`. b = 24 random bits; kUnit: (2^22 + floor(3b/4)) 2^-24,
// a whole number in [2^22, 2^24) times 2^-24, so [0.25, 1) exactly; kIntegers: 1 + b mod 255. The
// lowest bit is the sign.
LB_HOST_DEVICE constexpr float element(std::uint64_t key, std::uint64_t index, Draw draw) {
  const std::uint64_t bits = mix(key + index);
  const auto b = static_cast<std::uint32_t>(bits >> 40);
  const float magnitude = draw == Draw::kIntegers
                              ? static_cast<float>(1u + b % 255u)
                              : static_cast<float>((1u << 22) + ((3u * b) >> 2)) * 0x1.0p-24f;
  return (bits & 1u) ? -magnitude : magnitude;
}

}  // namespace random_draw
}  // namespace lb
