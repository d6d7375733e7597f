#include "harness/measure.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "common/elapsed.h"
#include "harness/clocks.h"
#include "harness/host_threads.h"
#include "harness/interrupt.h"

namespace lb {

SampleSeries take_samples(CaseResult& r, Variant& variant, const Environment& env, Progress& progress,
                          SampleHooks* hooks) {
  const bool gpu = r.spec.layer->on_gpu;
  const bool host_clock = env.on_host_clock(*r.spec.layer);
  const cudaStream_t stream = env.stream_for(*r.spec.layer);
  L2Flusher* flusher = gpu && env.options.cold ? env.flusher.get() : nullptr;
  // Launch-overhead cases measure how fast the host feeds the GPU: holding the stream would
  // measure the GPU draining a queue instead. A host-timed sample drains the stream before it stops.
  StreamGate* gate =
      gpu && !host_clock && !variant.run_waits() && r.spec.workload->figure() != Figure::kLaunchTime ? env.gate.get() : nullptr;
  SmClock* sm_clock = gpu ? env.sm_clock.get() : nullptr;
  const auto clock = make_sample_clock(gpu, stream, host_clock);
  r.host_timed = !gate;  // CPU layers, launch-overhead workloads, GPU cases whose run() waits or on the host clock
  SampleSeries series;
  double clock_sum = 0;
  r.throttled_samples = 0;
  // Who else used the machine: the GPU's other processes before and after, the CPUs throughout.
  std::vector<unsigned> other_gpu_pids;
  std::string gpu_why_not = gpu ? env.gpu_processes_unavailable : "a CPU layer";
  bool gpu_known = gpu && env.gpu_processes;
  const auto read_gpu_processes = [&] {
    if (!gpu_known) return;
    if (auto pids = env.gpu_processes->others(&gpu_why_not)) other_gpu_pids.insert(other_gpu_pids.end(), pids->begin(), pids->end());
    else gpu_known = false;
  };
  read_gpu_processes();
  CpuMeter cpu_meter;  // reads the process's CPUs: started before they are pinned, stopped after
  cpu_meter.start();
  std::optional<PinnedOpenMpTeam> pinned_team;  // a CPU layer's threads, one CPU each (host_threads.h)
  if (!gpu) pinned_team.emplace();
  const auto t0 = std::chrono::steady_clock::now();
  Stop stop = Stop::kContinue;
  for (std::size_t index = 0; stop == Stop::kContinue; ++index) {
    if (hooks) hooks->before_sample(index, stream);
    if (gate) gate->hold(stream);
    try {
      if (flusher) flusher->flush(stream);  // same stream, before the start event: not timed
      clock->start();
      variant.run(stream);
      clock->stop();
    } catch (...) {
      if (gate) gate->release();  // else the device spins until the gate's timeout
      throw;
    }
    if (gate) gate->release();
    const double ms = clock->elapsed_ms();
    if (gate && gate->timed_out()) {
      // compute-sanitizer serialises launches: each then waits for the gate's kernel, and the gate
      // times out through no fault of the variant.
      throw std::runtime_error("the stream was held back while run() enqueued, and run() waited for the device; " +
                               std::string(under_compute_sanitizer() ? "compute-sanitizer serialises launches: under it, use "
                                                       "`layerbench run --check` (scripts/sanitize.sh)"
                                                     : "a variant whose run() waits must say so (Variant::run_waits)"));
    }
    bool keep = true;
    if (sm_clock) {
      const double mhz = sm_clock->current_mhz();
      keep = !(mhz > 0 && mhz < env.throttle_mhz);
      if (keep && mhz > 0) clock_sum += mhz;
    }
    if (keep) series.add(ms);
    else ++r.throttled_samples;
    stop = interrupt_requested() ? Stop::kInterrupted : check_stop(series, ms_since(t0) / 1e3, env.options.rule);
    if (hooks) hooks->after_sample(index, stop != Stop::kContinue, stream);
    progress.tick();
  }
  r.load = MachineLoad{};
  if (pinned_team) {
    r.load.threads_pinned = pinned_team->pinned();
    r.load.threads_unpinned_why = pinned_team->why_not();
    pinned_team.reset();
  }
  cpu_meter.stop(r.load);
  read_gpu_processes();
  if (gpu_known) {  // each once, sorted
    std::sort(other_gpu_pids.begin(), other_gpu_pids.end());
    other_gpu_pids.erase(std::unique(other_gpu_pids.begin(), other_gpu_pids.end()), other_gpu_pids.end());
    r.load.other_gpu_pids = std::move(other_gpu_pids);
  }
  else r.load.gpu_processes_unavailable = gpu_why_not;
  r.busy = busy_reasons(r.load, gpu, r.host_timed);
  r.l2_flushed = flusher != nullptr;
  r.stream_held = gate != nullptr;
  r.measurement_wall_s = ms_since(t0) / 1e3;
  r.stop_reason = stop;
  r.mean_sm_clock_mhz = series.count() > 0 && sm_clock ? clock_sum / series.count() : 0.0;
  return series;
}

}  // namespace lb
