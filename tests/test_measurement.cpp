// The measurement machinery on the CPU: the stopping rule on synthetic sample streams, the size of
// the L2 flush, progress output that stays plain when it is not going to a terminal, and a CPU
// layer's OpenMP team pinned while it is timed.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "harness/case.h"
#include "harness/environment.h"
#include "harness/host_threads.h"
#include "harness/l2_flush.h"
#include "harness/machine_load.h"
#include "harness/progress.h"
#include "harness/sampling.h"

namespace lb {
namespace {

// Feeds samples from `next` as the harness would, advancing a fake wall clock by each sample plus
// a fixed per-sample overhead, until the rule stops.
template <class Next>
std::pair<Stop, SampleSeries> run_rule(const StoppingRule& rule, Next next, double overhead_s = 0.0) {
  SampleSeries series;
  double wall_s = 0.0;
  for (;;) {
    const double ms = next();
    series.add(ms);
    wall_s += ms / 1e3 + overhead_s;
    if (const Stop stop = check_stop(series, wall_s, rule); stop != Stop::kContinue) return {stop, series};
  }
}

TEST(StoppingRule, QuietStreamStopsAtTheMinimum) {
  StoppingRule rule;  // defaults: 0.5% noise, 10 samples, 0.1 s measured, 3 s cap
  rule.min_time_s = 0.0;
  std::mt19937 rng(1);
  std::normal_distribution<double> quiet(1.0, 0.001);  // 0.1% noise
  const auto [stop, series] = run_rule(rule, [&] { return quiet(rng); });
  EXPECT_EQ(stop, Stop::kNoiseReached);
  EXPECT_EQ(series.count(), rule.min_samples);
  EXPECT_LT(series.rel_stddev(), rule.target_rel_noise);
}

TEST(StoppingRule, QuietStreamAlsoWaitsForTheMinimumTime) {
  StoppingRule rule;
  rule.min_time_s = 0.1;
  const auto [stop, series] = run_rule(rule, [] { return 1.0; });  // 1 ms samples, no noise
  EXPECT_EQ(stop, Stop::kNoiseReached);
  EXPECT_EQ(series.count(), 100u);  // 100 x 1 ms = the minimum measured time
}

// A 7 us kernel would need 14 286 samples for 0.1 s: 400 stand in for the minimum time; under
// --thorough it waits for the time. A 1 ms kernel reaches the time first.
TEST(StoppingRule, ShortKernelStopsAtEnoughSamplesUnlessThorough) {
  StoppingRule rule;
  EXPECT_EQ(run_rule(rule, [] { return 0.007; }).second.count(), rule.enough_samples);
  rule = thorough(rule);
  const auto [stop, series] = run_rule(rule, [] { return 0.007; });
  EXPECT_EQ(stop, Stop::kNoiseReached);
  EXPECT_NEAR(double(series.count()), 0.1 / 0.007e-3, 1.0);
  rule = StoppingRule{};
  EXPECT_EQ(run_rule(rule, [] { return 1.0; }).second.count(), 100u);  // 0.1 s before 400 samples
}

// --thorough is the sampling before the one-minute suite: no sample count stands in for the time,
// and a noisy case is sampled for 3 s, not 1.
TEST(StoppingRule, ThoroughRestoresTheTimeRuleAndTheLongerCap) {
  const StoppingRule quick, slow = thorough(quick);
  EXPECT_GT(quick.enough_samples, 0u);
  EXPECT_EQ(slow.enough_samples, 0u);
  EXPECT_DOUBLE_EQ(quick.max_time_s, 1.0);
  EXPECT_DOUBLE_EQ(slow.max_time_s, 3.0);
  EXPECT_DOUBLE_EQ(slow.min_time_s, quick.min_time_s);
  EXPECT_DOUBLE_EQ(slow.target_rel_noise, quick.target_rel_noise);
}

// Alternating 1 - d, 1 + d: a noise of d (a hair over it with few samples), exactly, every time.
auto alternating(double d) {
  return [d, i = 0]() mutable { return 1.0 + (i++ % 2 ? d : -d); };
}

TEST(StoppingRule, NoiseJustAboveTheTargetStopsOnceItSettles) {
  StoppingRule rule;  // 0.5% target; 1 ms samples reach the 0.1 s minimum at 100
  const auto [stop, series] = run_rule(rule, alternating(0.0052));
  EXPECT_EQ(stop, Stop::kNoiseSettled);
  EXPECT_GT(series.rel_stddev(), rule.target_rel_noise);
  EXPECT_GE(series.count(), 100u);  // not before the minimum time
  EXPECT_LT(series.count(), 200u);  // long before the 3 s cap
}

TEST(StoppingRule, ClearlyNoisyStreamStopsOnceTheTargetIsOutOfReach) {
  StoppingRule rule;
  rule.min_time_s = 0.0;
  std::mt19937 rng(2);
  std::normal_distribution<double> noisy(1.0, 0.1);  // 10% noise against a 0.5% target
  const auto [stop, series] = run_rule(rule, [&] { return std::max(0.01, noisy(rng)); });
  EXPECT_EQ(stop, Stop::kNoiseOutOfReach);
  EXPECT_EQ(series.count(), 30u);  // the fewest samples this stop accepts
  EXPECT_GT(series.noise_lower_bound(), rule.target_rel_noise);
}

TEST(StoppingRule, NoisyStreamRunsToTheCapAndSaysSo) {
  StoppingRule rule;
  rule.max_time_s = 0.5;
  rule.stop_early_above_target = false;  // --to-cap
  std::mt19937 rng(2);
  std::normal_distribution<double> noisy(1.0, 0.1);
  const auto [stop, series] = run_rule(rule, [&] { return std::max(0.01, noisy(rng)); }, 0.0001);
  EXPECT_EQ(stop, Stop::kTimeCap);
  EXPECT_GT(series.rel_stddev(), rule.target_rel_noise);
  EXPECT_NEAR(series.count(), 0.5 / (1.0e-3 + 0.0001), 40.0);  // as many as fit in the cap
}

TEST(SampleSeries, NoiseLowerBoundFollowsTheChiSquareQuantile) {
  SampleSeries s;
  auto next = alternating(0.02);
  for (int i = 0; i < 30; ++i) s.add(next());
  // Upper 99% quantile of chi-square with 29 degrees of freedom: 49.588.
  EXPECT_NEAR(s.noise_lower_bound(), s.rel_stddev() * std::sqrt(29.0 / 49.588), 0.005 * s.rel_stddev());
  SampleSeries one;
  one.add(1.0);
  EXPECT_EQ(one.noise_lower_bound(), 0.0);
}

// The cap waits for the samples compare's rank test needs (6), not for the noise's minimum (10).
TEST(StoppingRule, SlowCaseStopsAtTheCapOnceCompareHasItsSamples) {
  StoppingRule rule;
  rule.max_time_s = 1.0;
  const auto [stop, series] = run_rule(rule, [] { return 400.0; });  // 0.4 s per sample
  EXPECT_EQ(stop, Stop::kTimeCap);
  EXPECT_EQ(series.count(), 6u);
  rule.cap_min_samples = 1;  // a caller with a budget of its own (a lab's student kernel)
  const auto [stop_one, one] = run_rule(rule, [] { return 400.0; });
  EXPECT_EQ(stop_one, Stop::kTimeCap);
  EXPECT_EQ(one.count(), 3u);
}

TEST(StoppingRule, NamesItsReasons) {
  EXPECT_EQ(to_string(Stop::kNoiseReached), "noise target");
  EXPECT_EQ(to_string(Stop::kNoiseSettled), "noise settled");
  EXPECT_EQ(to_string(Stop::kNoiseOutOfReach), "noise out of reach");
  EXPECT_EQ(to_string(Stop::kTimeCap), "time cap");
}

TEST(SampleSeries, MeanAndRelativeStddev) {
  SampleSeries s;
  for (double v : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) s.add(v);
  EXPECT_DOUBLE_EQ(s.mean_ms(), 5.0);
  EXPECT_NEAR(s.rel_stddev(), std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
  EXPECT_NEAR(s.measured_s(), 0.040, 1e-12);
}

// Which layers' samples the host clock times: a GPU layer registered so (the jax layer), every GPU
// layer under --host-clock, never a layer timed by device events otherwise; a CPU layer is on the
// host clock anyway and is not "host-timed" GPU work.
TEST(LayerClock, HostClockForLayersThatAskAndUnderHostClock) {
  Environment env;
  Layer events{.name = "events", .on_gpu = true};
  Layer own_streams{.name = "own-streams", .on_gpu = true, .timing = LayerClock::kHostClock};
  Layer cpu{.name = "cpu", .on_gpu = false};
  EXPECT_FALSE(env.on_host_clock(events));
  EXPECT_TRUE(env.on_host_clock(own_streams));
  EXPECT_FALSE(env.on_host_clock(cpu));
  env.options.host_clock = true;
  EXPECT_TRUE(env.on_host_clock(events));
  EXPECT_TRUE(env.on_host_clock(own_streams));
  EXPECT_FALSE(env.on_host_clock(cpu));
}

TEST(L2Flush, FollowsTheDevicesL2) {
  EXPECT_EQ(l2_flush_bytes(50u << 20), 100u << 20);  // H100: 50 MiB -> 100 MiB
  EXPECT_EQ(l2_flush_bytes(60u << 20), 120u << 20);
  EXPECT_EQ(l2_flush_bytes(0), 1u << 20);             // never less than 1 MiB
}

std::string capture(bool live) {
  std::FILE* f = std::tmpfile();
  {
    Progress p(f, live);
    p.begin_case(0, 3, "vector_add/runtime/1000");
    p.tick();
    p.clear();
    p.begin_case(1, 3, "saxpy/runtime/1000");
  }
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

TEST(Progress, PlainLinesWithoutATerminal) {
  const std::string text = capture(false);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("[1/3, 0 s] vector_add/runtime/1000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[2/3, 0 s] saxpy/runtime/1000\n"), std::string::npos) << text;
}

TEST(Progress, OneLiveLineOnATerminal) {
  const std::string text = capture(true);
  EXPECT_NE(text.find("\r\x1b[K[2/3] saxpy/runtime/1000"), std::string::npos) << text;
  EXPECT_NE(text.find("1 left"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
}

TEST(KeptSamples, AllUpToTheCapRoundedToFourSignificantDigits) {
  EXPECT_EQ(round_significant(0.229149, 4), 0.2291);
  EXPECT_EQ(round_significant(32.04567, 4), 32.05);
  EXPECT_EQ(round_significant(12345.6, 4), 12350.0);
  EXPECT_EQ(round_significant(0.0, 4), 0.0);
  const std::vector<double> few = {1.23456, 2.0, 0.000123456};
  EXPECT_EQ(kept_samples_for_results(few), (std::vector<double>{1.235, 2.0, 0.0001235}));
}

TEST(KeptSamples, BeyondTheCapEvenlySpacedInTheOrderTaken) {
  std::vector<double> many;
  for (std::size_t i = 0; i < 3 * kKeptSamples; ++i) many.push_back(1.0 + static_cast<double>(i));
  const std::vector<double> kept = kept_samples_for_results(many);
  ASSERT_EQ(kept.size(), kKeptSamples);
  EXPECT_EQ(kept.front(), 1.0);
  EXPECT_EQ(kept[1], 4.0);  // every third
  EXPECT_EQ(kept.back(), round_significant(1.0 + 3.0 * (kKeptSamples - 1), 4));
}

TEST(MachineLoad, OtherPidsLeaveOursOutAndTakeOneAsOursWhenNvmlListsHostPids) {
  EXPECT_EQ(other_pids({12, 7, 12, 40}, 7), (std::vector<unsigned>{12, 40}));
  EXPECT_EQ(other_pids({7}, 7), std::vector<unsigned>{});
  // In a PID namespace our process is listed under the host's PID, which we cannot tell: one is ours.
  EXPECT_EQ(other_pids({900}, 7), std::vector<unsigned>{});
  EXPECT_EQ(other_pids({950, 900}, 7), std::vector<unsigned>{950});
  EXPECT_EQ(other_pids({}, 7), std::vector<unsigned>{});
}

TEST(MachineLoad, BusyReasonsNameTheGpusOtherProcessesAndTheHostsLoadForHostTimedCases) {
  MachineLoad load;
  load.read = true;
  load.cpus = 16;
  load.cpu_window_s = 0.5;
  load.other_cpus = 3.14;
  load.load_avg_1m = 40.2;
  load.other_gpu_pids = std::vector<unsigned>{4242, 4343};
  EXPECT_EQ(busy_reasons(load, true, false), std::vector<std::string>{"2 other processes on the GPU (pids 4242, 4343)"});
  EXPECT_EQ(busy_reasons(load, false, true),
            (std::vector<std::string>{"other processes kept 3.1 of 16 CPUs busy", "load average 40.2 on 16 CPUs"}));
  load.cpu_window_s = kMinCpuWindowS / 2;  // too short to read by 10 ms ticks
  load.load_avg_1m = 20.0;                 // under 2 per CPU: our own threads may account for it
  load.other_gpu_pids = std::vector<unsigned>{};
  EXPECT_TRUE(busy_reasons(load, true, true).empty());
  load.read = false;
  load.cpu_window_s = 1.0;
  EXPECT_TRUE(busy_reasons(load, true, true).empty());  // never read: never busy
}

// Another process spinning on our CPUs is read as other processes' CPU time; our own is not.
TEST(MachineLoad, CpuMeterCountsAnotherProcessesCpuTimeNotOurs) {
  const auto spin = [](double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    volatile unsigned x = 0;
    while (std::chrono::steady_clock::now() < end) x = x + 1;
  };
  CpuMeter meter;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    spin(0.6);
    _exit(0);
  }
  meter.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  MachineLoad load;
  meter.stop(load);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(load.other_cpus) << load.other_cpus_unavailable;
  EXPECT_GE(load.cpu_window_s, 0.5);
  EXPECT_GE(load.cpus, 1);
  EXPECT_GE(*load.other_cpus, 0.6) << "a child spinning throughout is most of a CPU";  // ticks: +-0.1
  EXPECT_TRUE(load.load_avg_1m);
}

}  // namespace
namespace {
int cpus_of_this_thread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}
}  // namespace

// While it lives, every OpenMP thread runs on one CPU, no two on the same one (as many threads as
// CPUs); after it, every thread, the calling one first, has all of the process's CPUs again.
TEST(PinnedOpenMpTeam, PinsEachThreadToACpuOfItsOwnAndRestoresThemAll) {
  const int allowed = cpus_of_this_thread();
  if (allowed < 2) GTEST_SKIP() << "this process may run on " << allowed << " CPU: nothing to pin";
  const int threads = omp_get_max_threads();
  if (threads < allowed) {  // ctest gives each test 2 threads (LB_TEST_HOST_THREADS): left to Linux
    PinnedOpenMpTeam team;
    EXPECT_FALSE(team.pinned());
    EXPECT_NE(team.why_not().find("is smaller than the process's"), std::string::npos) << team.why_not();
    omp_set_num_threads(allowed);  // the whole machine's team, as a run has it
  }
  const int team_size = omp_get_max_threads();
  std::vector<int> cpu(static_cast<std::size_t>(team_size), -1), count(static_cast<std::size_t>(team_size), -1);
  {
    PinnedOpenMpTeam team;
    ASSERT_TRUE(team.pinned()) << team.why_not();
#pragma omp parallel
    {
      const auto i = static_cast<std::size_t>(omp_get_thread_num());
      count[i] = cpus_of_this_thread();
      cpu[i] = sched_getcpu();
    }
    EXPECT_EQ(cpus_of_this_thread(), 1);  // the calling thread is thread 0
  }
  for (int i = 0; i < team_size; ++i) EXPECT_EQ(count[static_cast<std::size_t>(i)], 1) << "thread " << i;
  {
    std::vector<int> sorted = cpu;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "two threads on one CPU";
  }
  EXPECT_EQ(cpus_of_this_thread(), allowed);
  std::vector<int> after(static_cast<std::size_t>(team_size), -1);
#pragma omp parallel
  after[static_cast<std::size_t>(omp_get_thread_num())] = cpus_of_this_thread();
  for (int i = 0; i < team_size; ++i) EXPECT_EQ(after[static_cast<std::size_t>(i)], allowed) << "thread " << i;
}

}  // namespace lb
