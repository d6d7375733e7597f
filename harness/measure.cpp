#include "harness/measure.h"

#include <chrono>
#include <stdexcept>

#include "common/elapsed.h"
#include "harness/clocks.h"
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
  SampleSeries series;
  double clock_sum = 0;
  r.throttled_samples = 0;
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
  r.l2_flushed = flusher != nullptr;
  r.stream_held = gate != nullptr;
  r.host_clock = host_clock;
  r.measurement_wall_s = ms_since(t0) / 1e3;
  r.stop_reason = stop;
  r.mean_sm_clock_mhz = series.count() > 0 && sm_clock ? clock_sum / series.count() : 0.0;
  return series;
}

}  // namespace lb
