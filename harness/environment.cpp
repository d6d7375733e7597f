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
  env->measurement.check_only = options.check_only;
  env->measurement.gpu_cold = options.cold;
  env->measurement.gpu_host_clock = options.host_clock;
  env->measurement.rule = options.rule;
  if (options.check_only) {
    if (with_gpu) {
      env->device = query_device_info();
      env->peaks = query_device_peaks();
      env->stream.emplace();
    }
    return env;
  }
  if (!with_gpu) return env;

  env->device = query_device_info();
  env->peaks = query_device_peaks();
  env->stream.emplace();
  const cudaStream_t stream = env->gpu_stream();
  if (options.measure_ceilings) {
    std::fprintf(stderr, "layerbench: measuring the ceilings of %s (copy bandwidth, cuBLAS SGEMM)\n",
                 env->device->name.c_str());
    env->ceilings.copy = measure_copy_ceiling(stream);
    env->ceilings.sgemm = measure_sgemm_ceiling(stream);
  }

  env->flusher = std::make_unique<L2Flusher>(static_cast<std::size_t>(env->device->l2_cache_bytes), stream);
  env->measurement.l2_flush_bytes = env->flusher->bytes();
  env->gate = std::make_unique<StreamGate>();
  env->context_probe = std::make_unique<ContextProbe>(stream, *env->gate);
  env->context_probe->read("start");
  SmClockSetting& clock = env->measurement.sm_clock.emplace();
  env->sm_clock = SmClock::open(env->device->pci_bus_id, &clock.unavailable);
  if (env->sm_clock) {
    env->throttle_mhz = 0.75 * env->sm_clock->default_mhz();
    clock.unavailable.clear();
    clock.default_mhz = env->sm_clock->default_mhz();
    clock.throttle_below_mhz = env->throttle_mhz;
  } else if (clock.unavailable.empty()) {
    clock.unavailable = "NVML did not say why";
  }
  env->gpu_processes_unavailable.clear();
  env->gpu_processes = GpuProcesses::open(env->device->pci_bus_id, &env->gpu_processes_unavailable);
  return env;
}

}  // namespace lb
