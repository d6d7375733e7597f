#include "harness/sampling.h"

#include <algorithm>
#include <cmath>

namespace lb {
namespace {
constexpr std::size_t kNoiseWindow = 512, kNoiseMinValues = 64, kNoiseCheckEvery = 16;
constexpr double kSettledSpread = 0.05;
// The out-of-reach stop needs this many samples: fewer, and one outlier could decide it.
constexpr std::size_t kOutOfReachMinSamples = 30;
constexpr double kZ99 = 2.3263;  // one-sided 99% normal quantile
}  // namespace

void SampleSeries::add(double ms) {
  samples_.push_back(ms);
  sum_ms_ += ms;
  const double delta = ms - mean_;
  mean_ += delta / static_cast<double>(samples_.size());
  m2_ += delta * (ms - mean_);
  if (samples_.size() >= 2) {
    recent_noise_.push_back(rel_stddev());
    if (recent_noise_.size() > kNoiseWindow) recent_noise_.pop_front();
  }
}

bool SampleSeries::noise_settled() const {
  if (recent_noise_.size() <= kNoiseMinValues || samples_.size() % kNoiseCheckEvery != 0) return false;
  const double current = recent_noise_.back();
  if (current <= 0.0) return true;
  double sum_sq = 0.0;
  for (const double noise : recent_noise_) sum_sq += (noise - current) * (noise - current);
  const double spread = std::sqrt(sum_sq / static_cast<double>(recent_noise_.size() - 1));
  return spread / current < kSettledSpread;
}

double SampleSeries::rel_stddev() const {
  if (samples_.size() < 2 || mean_ <= 0.0) return 0.0;
  return std::sqrt(m2_ / static_cast<double>(samples_.size() - 1)) / mean_;
}

// For normal samples (n-1) s^2 / sigma^2 is chi-square with n-1 degrees of freedom; its upper 99%
// quantile (Wilson-Hilferty's approximation, within 1% from 10 samples on) bounds sigma from below.
double SampleSeries::noise_lower_bound() const {
  if (samples_.size() < 2) return 0.0;
  const double k = static_cast<double>(samples_.size() - 1);
  const double h = 2.0 / (9.0 * k);
  const double chi2_upper = k * std::pow(1.0 - h + kZ99 * std::sqrt(h), 3.0);
  return rel_stddev() * std::sqrt(k / chi2_upper);
}

StoppingRule thorough(StoppingRule rule) {
  rule.enough_samples = 0;
  rule.max_time_s = 3.0;
  return rule;
}

std::string to_string(Stop stop) {
  switch (stop) {
    case Stop::kContinue: return "sampling";
    case Stop::kNoiseReached: return "noise target";
    case Stop::kNoiseSettled: return "noise settled";
    case Stop::kNoiseOutOfReach: return "noise out of reach";
    case Stop::kTimeCap: return "time cap";
    case Stop::kInterrupted: return "interrupted";
  }
  return "?";
}

Stop check_stop(const SampleSeries& series, double wall_s, const StoppingRule& rule) {
  const bool long_enough = series.measured_s() >= rule.min_time_s ||
                           (rule.enough_samples > 0 && series.count() >= rule.enough_samples);
  if (series.count() >= rule.min_samples && long_enough) {
    if (series.rel_stddev() <= rule.target_rel_noise) return Stop::kNoiseReached;
    if (rule.stop_early_above_target) {
      if (series.noise_settled()) return Stop::kNoiseSettled;
      if (series.count() >= kOutOfReachMinSamples && series.noise_lower_bound() > rule.target_rel_noise)
        return Stop::kNoiseOutOfReach;
    }
  }
  if (wall_s >= rule.max_time_s && series.count() >= std::max<std::size_t>(1, rule.cap_min_samples)) return Stop::kTimeCap;
  return Stop::kContinue;
}

}  // namespace lb
