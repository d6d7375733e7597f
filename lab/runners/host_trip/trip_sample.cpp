#include "lab/runners/host_trip/trip_sample.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "lab/child/grade_keys.h"
#include "workloads/problem.h"  // relative_error, kFloatEps
#include "workloads/random_draw.h"

namespace lb::lab {

std::vector<std::int64_t> end_sample_positions(std::uint64_t trip_seed, std::int64_t n) {
  if (n < 1) throw std::logic_error("an end sample of an empty c");
  std::vector<std::int64_t> positions;
  if (n <= static_cast<std::int64_t>(EndSample::kPositions)) {
    for (std::int64_t i = 0; i < n; ++i) positions.push_back(i);
    return positions;
  }
  // One keyed hash (HMAC: its key is secret, its output says nothing of it), then splitmix64 of
  // key + k: 4096 HMACs would take milliseconds each trip.
  const std::uint64_t key = keyed_hash(trip_seed, "end sample");
  positions.reserve(EndSample::kPositions);
  for (std::size_t k = 0; k < EndSample::kPositions; ++k)
    positions.push_back(static_cast<std::int64_t>(random_draw::mix(key + k) % static_cast<std::uint64_t>(n)));
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());  // a few fewer, at most
  return positions;
}

void EndSample::draw(std::uint64_t trip_seed, std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) throw std::logic_error("an end sample of a and b of different lengths");
  n_ = static_cast<std::int64_t>(a.size());
  positions_ = end_sample_positions(trip_seed, n_);
  a_.resize(positions_.size());
  b_.resize(positions_.size());
  for (std::size_t k = 0; k < positions_.size(); ++k) {
    a_[k] = a[static_cast<std::size_t>(positions_[k])];
    b_[k] = b[static_cast<std::size_t>(positions_[k])];
  }
}

bool EndSample::met_within(std::span<const float> c, std::chrono::milliseconds grace) const {
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (mismatch(c).empty()) return true;
  }
  return false;
}

std::string EndSample::mismatch(std::span<const float> c) const {
  if (static_cast<std::int64_t>(c.size()) != n_) throw std::logic_error("an end sample of another c");
  for (std::size_t k = 0; k < positions_.size(); ++k) {
    const float got = c[static_cast<std::size_t>(positions_[k])];
    const double expected = double(a_[k]) + double(b_[k]);
    if (double(got) == expected ||
        relative_error(got, expected, std::fabs(double(a_[k])) + std::fabs(double(b_[k]))) <= kFloatEps) continue;
    char what[200];
    if (std::isnan(got)) std::snprintf(what, sizeof what, "still the poison (NaN) written before the trip");
    else std::snprintf(what, sizeof what, "%.9g where a + b is %.9g", double(got), expected);
    return "the trip said it had ended before c was written (element " + std::to_string(positions_[k]) + " of " +
           std::to_string(n_) + " sampled at the end mark: " + what + ")";
  }
  return "";
}

}  // namespace lb::lab
