#include "harness/sampling.h"

#include <cmath>

namespace lb {

void SampleSeries::add(double ms) {
  samples_.push_back(ms);
  sum_ms_ += ms;
  const double delta = ms - mean_;
  mean_ += delta / static_cast<double>(samples_.size());
  m2_ += delta * (ms - mean_);
}

double SampleSeries::rel_stddev() const {
  if (samples_.size() < 2 || mean_ <= 0.0) return 0.0;
  return std::sqrt(m2_ / static_cast<double>(samples_.size() - 1)) / mean_;
}

Stop check_stop(const SampleSeries& series, double wall_s, const StoppingRule& rule) {
  if (series.count() >= rule.min_samples && series.measured_s() >= rule.min_time_s &&
      series.rel_stddev() <= rule.target_rel_noise)
    return Stop::kNoiseReached;
  if (wall_s >= rule.max_time_s && series.count() >= 1) return Stop::kTimeCap;
  return Stop::kContinue;
}

}  // namespace lb
