// The child's own word on when a timed trip of the host trip (runner host-trip) ended. The trip
// process runs the student's code and holds the socket its "ran" comes on: any thread of the
// student's can send a "ran" of its own early (docs/labs.md, "What grading guards against"). So a
// "ran" is never the end mark by itself: when it arrives the child reads a keyed sample of c in
// the shared memory (trip_process.h) and emits the end mark only when every sampled element holds
// its value. Where it does not, the child watches the sample for up to a second
// (TripProcess::finish_ran): c finished meanwhile means the "ran" came before c was written, and
// the trip fails with mismatch()'s line; c still not right is the trip's wrong result, which the full
// verification after the end mark explains as it always did. The sample is read before the end
// mark, in both trips' clocks alike (a fraction of a millisecond: 4096 reads), so that no end mark
// can precede a finished c.
//
// Its positions are drawn from a one-way function of the trip's seed (keyed_hash, grade_keys.h),
// which the student's process never holds: it cannot tell which elements are read, so it cannot
// finish those first. Detection power: a trip that says it ended with a fraction f of c unwritten
// (or wrong) passes the sample with probability (1 - f)^4096: 1.6e-18 at f = 1%, 0.017 at
// f = 0.1%, 0.66 at f = 0.01% (6711 of 2^26 floats). A "ran" that passes it comes at most the time
// of writing such a fraction early (f of the download: microseconds of an 11 ms trip), since c is
// finished by the time the full verification reads it. At n <= 4096 every element is read.
//
// The rule an element must meet is vector_add's (workloads/vector_add/vector_add.cpp, the lab's
// workload): c[i] within 2^-23 (|a[i]| + |b[i]|) of the exact a[i] + b[i], so that a trip the full
// verification passes is never failed here.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace lb::lab {

class EndSample {
 public:
  static constexpr std::size_t kPositions = 4096;

  // The sample of a trip whose inputs are `a` and `b` (the child's own copy), drawn from its seed:
  // sorted positions (so that the reads at the end mark go through c in order), each with its a
  // and b kept here, so the check reads c alone.
  void draw(std::uint64_t trip_seed, std::span<const float> a, std::span<const float> b);
  // Empty when every sampled element of `c` meets the rule; else the trip's error, naming the first
  // element that does not ("the trip said it had ended before c was written (element I of N
  // sampled at the end mark: ...)").
  std::string mismatch(std::span<const float> c) const;
  // Whether c, read again every millisecond, meets the sample within `grace`: after a "ran" whose c
  // did not, true means the "ran" came before c was written (c finished after it), false a wrong
  // result (c stays as it is once the trip's work is done).
  bool met_within(std::span<const float> c, std::chrono::milliseconds grace) const;
  const std::vector<std::int64_t>& positions() const { return positions_; }
  std::int64_t n() const { return n_; }

 private:
  std::int64_t n_ = 0;
  std::vector<std::int64_t> positions_;
  std::vector<float> a_, b_;  // at each position
};

// The positions alone (draw's): kPositions draws of [0, n), sorted, each once (a draw that repeats
// one is dropped: about one in eight samples at 2^26 loses one), drawn from keyed_hash(trip_seed,
// "end sample") by splitmix64; every element of [0, n) when n <= kPositions.
std::vector<std::int64_t> end_sample_positions(std::uint64_t trip_seed, std::int64_t n);

}  // namespace lb::lab
