// When to stop taking samples: nvbench's rule. Samples are taken until their relative standard
// deviation falls under a target, once there are enough of them and enough measured time, or
// until a wall-clock cap says that this case is too noisy to settle.
#pragma once
#include <cstddef>
#include <vector>

namespace lb {

struct StoppingRule {
  double target_rel_noise = 0.005;  // relative standard deviation of the samples (0.5%)
  std::size_t min_samples = 10;
  double min_time_s = 0.1;  // measured (summed sample) time before the noise may stop sampling
  double max_time_s = 0.5;  // wall-clock cap on one case's sampling, flushes included
};

// Running mean and variance of the kept samples (Welford), in milliseconds.
class SampleSeries {
 public:
  void add(double ms);
  std::size_t count() const { return samples_.size(); }
  double measured_s() const { return sum_ms_ / 1e3; }
  double mean_ms() const { return mean_; }
  double rel_stddev() const;  // sample standard deviation over the mean; 0 with fewer than 2
  const std::vector<double>& samples() const { return samples_; }

 private:
  std::vector<double> samples_;
  double mean_ = 0.0, m2_ = 0.0, sum_ms_ = 0.0;
};

enum class Stop { kContinue, kNoiseReached, kTimeCap };

// Decides after each sample. `wall_s` is the wall-clock time spent sampling so far.
Stop check_stop(const SampleSeries& series, double wall_s, const StoppingRule& rule);

}  // namespace lb
