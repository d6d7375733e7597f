#include "harness/environment.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness/ceilings.h"
#include "harness/device_info.h"

namespace lb {

bool under_compute_sanitizer() { return std::getenv("NV_SANITIZER_INJECTION_PORT_RANGE_BEGIN") != nullptr; }

std::unique_ptr<Environment> open_environment(bool with_gpu, const MeasureOptions& options) {
  auto env = std::make_unique<Environment>();
  env->options = options;
  const StoppingRule& rule = options.rule;
  if (options.check_only) {
    env->measurement = {{"mode", "check"}};
    if (with_gpu) {
      env->device = device_json();
      env->peaks = query_device_peaks();
      env->stream.emplace();
    }
    return env;
  }
  env->measurement = {{"mode", "timed"},
                      {"gpu_cache_mode", options.cold ? "cold" : "hot"},
                      {"cpu_cache_mode", "hot"},
                      {"noise_target", rule.target_rel_noise},
                      {"min_samples", rule.min_samples},
                      {"min_time_s", rule.min_time_s},
                      {"max_time_s", rule.max_time_s},
                      {"stops_early_above_target", rule.stop_early_above_target},
                      {"sm_clock", nullptr}};
  if (!with_gpu) return env;

  env->device = device_json();
  env->peaks = query_device_peaks();
  env->stream.emplace();
  const cudaStream_t stream = env->gpu_stream();
  std::fprintf(stderr, "layerbench: measuring the ceilings of %s (copy bandwidth, cuBLAS SGEMM)\n",
               env->device["name"].get<std::string>().c_str());
  env->ceilings = measure_copy_ceiling(stream);
  env->ceilings.update(measure_sgemm_ceiling(stream));

  env->flusher = std::make_unique<L2Flusher>(env->device["l2_cache_bytes"].get<std::size_t>(), stream);
  env->measurement["l2_flush_bytes"] = env->flusher->bytes();
  env->gate = std::make_unique<StreamGate>();
  env->context_probe = std::make_unique<ContextProbe>(stream, *env->gate);
  env->context_probe->read("start");
  std::string why_not;
  env->sm_clock = SmClock::open(env->device["pci_bus_id"].get<std::string>(), &why_not);
  if (env->sm_clock) {
    env->throttle_mhz = 0.75 * env->sm_clock->default_mhz();
    env->measurement["sm_clock"] = {{"source", "NVML, read after each sample"},
                                    {"default_mhz", env->sm_clock->default_mhz()},
                                    {"throttle_below_mhz", env->throttle_mhz}};
  } else {
    env->measurement["sm_clock"] = {{"unavailable", why_not}};
  }
  return env;
}

}  // namespace lb
