#include "harness/record.h"

#include <cstdio>
#include <random>

#include "common/gpu.h"
#include "harness/benchmark_run.h"
#include "harness/host_info.h"

namespace lb {

std::string new_run_id() {
  std::random_device random;
  std::string id;
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", static_cast<unsigned>(random() & 0xffffffffu));
    id += part;
  }
  return id;
}

RunContext run_context(const RunInfo& run, const SuitePlan& plan, const Environment& env,
                       const LayerSessions& sessions) {
  RunContext c;
  c.date = run.started_at;
  c.run_id = run.run_id;
  c.executable = run.executable;
  c.command_line = run.command_line;
  c.seed = env.options.seed;
  c.suite_wall_s = run.suite_wall_s;
  c.host = query_host_info();
  c.task = query_task_info();
  c.cpu = google_benchmark_cpu_info();
  c.device = env.device;
  c.peaks = env.peaks;
  c.ceilings = env.ceilings;
  if (env.context_probe) c.context_probe = env.context_probe->readings();
  c.measurement = env.measurement;
  // Why there is no GPU (the probe's reason, nothing of any layer's), and apart from it why each
  // layer left out was: a Python layer's missing package is a layer's reason, not the GPU's.
  if (!plan.unavailable.empty()) {
    c.gpu_unavailable_reason = gpu_unavailable_reason();
    for (const auto& [reason, names] : plan.unavailable)
      for (const auto& name : names) c.layers_unavailable[name] = reason;
  }
  for (const Layer* l : plan.layers) c.layers[l->name] = sessions.record(*l);
  c.workloads = plan.workloads;
  return c;
}

}  // namespace lb
