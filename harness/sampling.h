// When to stop taking samples. Once there are enough samples and enough measured time (or, for short
// kernels, many samples), sampling stops when their relative standard deviation (the noise) falls
// under a target (nvbench's rule), or early when more samples would not bring it under: the noise
// has settled above the target (nvbench's convergence test), or is out of its reach (even its 99%
// lower confidence bound is above it). Otherwise it stops at a wall-clock cap.
#pragma once
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

namespace lb {

struct StoppingRule {
  double target_rel_noise = 0.005;  // relative standard deviation of the samples (0.5%)
  std::size_t min_samples = 10;
  double min_time_s = 0.1;  // measured (summed sample) time before the noise may stop sampling
  // ...or this many samples, where that comes first: a 7 us kernel would need 14 000 samples for
  // 0.1 s, each with its L2 flush, when 400 already put the mean's standard error at a twentieth
  // of the noise (1/sqrt(400)). 0: min_time_s alone (run --thorough). Kernels of 250 us and more
  // reach min_time_s first, so their sampling is the same either way.
  std::size_t enough_samples = 400;
  // Wall-clock cap on one case's sampling, flushes included. It stops only cases whose noise stays
  // above the target (CPU layers, seconds-long samples); a GPU case of 2^24 elements and more
  // reaches the target in about 0.1 s. run --thorough: 3 s.
  double max_time_s = 1.0;
  // ...once there are this many samples: the fewest on each side that `compare`'s rank test takes
  // (python/layerbench/reports/verdict.py, MIN_SAMPLES: with 6 and 6 its p-value can fall under 0.01,
  // with 5 and 5 not below 0.012). With fewer, a 1.2x change of a slow case
  // (a CPU matmul of 0.4 s a sample stopped at 3) could only ever be `unclear`.
  std::size_t cap_min_samples = 6;
  bool stop_early_above_target = true;  // the settled and out-of-reach stops; off: sample to the cap
};

// run --thorough: min_time_s alone (no enough_samples), and a 3 s cap: the sampling of every case
// before the default suite was made to fit in a minute.
StoppingRule thorough(StoppingRule rule);

// Running mean and variance of the kept samples (Welford), in milliseconds, and the noise after
// each of the latest samples.
class SampleSeries {
 public:
  void add(double ms);
  std::size_t count() const { return samples_.size(); }
  double measured_s() const { return sum_ms_ / 1e3; }
  double mean_ms() const { return mean_; }
  double rel_stddev() const;  // sample standard deviation over the mean; 0 with fewer than 2
  const std::vector<double>& samples() const { return samples_; }
  // Whether the noise has stopped moving: over its latest values (up to 512, once there are more
  // than 64; judged every 16th sample), its standard deviation about the current noise is under
  // 5% of it. nvbench's convergence test, with its constants.
  bool noise_settled() const;
  // A one-sided 99% lower confidence bound of the noise (chi-square, as for normal samples): the
  // true noise is very likely above it. 0 with fewer than 2 samples.
  double noise_lower_bound() const;

 private:
  std::vector<double> samples_;
  std::deque<double> recent_noise_;
  double mean_ = 0.0, m2_ = 0.0, sum_ms_ = 0.0;
};

// kInterrupted: Ctrl-C or SIGTERM (harness/interrupt.h) stopped it after the sample under way.
enum class Stop { kContinue, kNoiseReached, kNoiseSettled, kNoiseOutOfReach, kTimeCap, kInterrupted };
// "noise target", "noise settled", "noise out of reach", "time cap", "interrupted" (as in the JSON)
std::string to_string(Stop stop);

// Decides after each sample. `wall_s` is the wall-clock time spent sampling so far.
Stop check_stop(const SampleSeries& series, double wall_s, const StoppingRule& rule);

}  // namespace lb
