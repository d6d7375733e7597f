// Whether this test executable is built with AddressSanitizer (scripts/test-sanitized.sh,
// -DLAYERBENCH_SANITIZE=ON). A test that repeats one check over many inputs runs a few of them
// there: every repetition goes through the same code of ours, where the sanitizer looks for memory
// errors, while the plain build (scripts/test.sh) runs them all. docs/hardening.md lists what the
// sanitized run leaves out.
#pragma once

#include <algorithm>
#include <cstddef>

namespace lb::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// How many of `count` repetitions to run: all of them, or `under_sanitizer` in the sanitized build.
inline std::size_t repetitions(std::size_t count, std::size_t under_sanitizer) {
  return kSanitizedBuild ? std::min(count, under_sanitizer) : count;
}

}  // namespace lb::test
