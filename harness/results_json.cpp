#include "harness/results_json.h"

#include "source_commit.h"  // generated: cmake/source_commit.cmake

namespace lb {
namespace {

using nlohmann::json;

json buffer_json(const BufferSpec& b) {
  json extents = json::array();
  for (const Dim d : b.extents) extents.push_back(to_string(d));
  return {{"name", b.name}, {"extents", extents}};
}

// What the context records of a workload: its descriptor (workloads/workload.h), which the reports
// read instead of knowing workloads by name.
json descriptor_json(const WorkloadDescriptor& d) {
  json inputs = json::array(), arguments = json::array();
  for (const BufferSpec& b : d.inputs) inputs.push_back(buffer_json(b));
  for (const KernelArg& a : d.kernel_args) arguments.push_back({{"name", a.name}, {"type", a.type}});
  json j = {{"figure", to_string(d.figure)},
          {"summary", d.summary},
          {"size_form", to_string(d.size_form)},
          {"inputs", inputs},
          {"output", buffer_json(d.output)},
          {"kernel_arguments", arguments},
          {"ladder_default_size", d.ladder_default_size.empty() ? json(nullptr) : json(d.ladder_default_size)},
          {"vendor", d.vendor.library.empty() ? json(nullptr)
                                              : json{{"library", d.vendor.library}, {"routine", d.vendor.routine}}}};
  // A folder workload: which folder, which version of it (sha256 of its files), and what it said.
  if (!d.folder.dir.empty())
    j["folder"] = {{"dir", d.folder.dir}, {"content_hash", d.folder.content_hash},
                   {"workload_json", json::parse(d.folder.workload_json)}};
  return j;
}

json layer_json(const LayerRecord& layer) {
  json j = layer.described;
  j["on_gpu"] = layer.on_gpu;
  // A GPU layer's clock: "host" for one that enqueues on streams of its own (Layer::timing; every
  // GPU layer under --host-clock, which context.measurement.gpu_timing says), else device events.
  if (layer.on_gpu) j["clock"] = layer.host_clock ? "host" : "device events";
  if (!layer.one_time_costs.entries().empty()) j["one_time_costs"] = layer.one_time_costs.to_json();
  return j;
}

json probe_json(const std::vector<ProbeReading>& readings) {
  json list = json::array();
  for (const ProbeReading& r : readings) list.push_back({{"when", r.when}, {"us_per_kernel", r.us_per_kernel}});
  return list;
}

// Google Benchmark's CPU information, under the names its JSON reporter gives it.
void add_cpu_info(json& context, const CpuInfo& cpu) {
  json caches = json::array();
  for (const CpuInfo::Cache& c : cpu.caches)
    caches.push_back({{"type", c.type}, {"level", c.level}, {"size", c.size}, {"num_sharing", c.num_sharing}});
  context["num_cpus"] = cpu.num_cpus;
  context["mhz_per_cpu"] = cpu.mhz_per_cpu;
  context["cpu_scaling_enabled"] = cpu.scaling_enabled;
  context["caches"] = caches;
  context["load_avg"] = cpu.load_avg;
}

}  // namespace

json device_json(const DeviceInfo& d) {
  return {
      {"index", d.index},
      {"name", d.name},
      {"uuid", d.uuid},
      {"pci_bus_id", d.pci_bus_id},
      {"compute_capability", d.compute_capability},
      {"sm_count", d.sm_count},
      {"sm_clock_mhz", d.sm_clock_mhz},
      {"memory_clock_mhz", d.memory_clock_mhz},
      {"memory_bus_width_bits", d.memory_bus_width_bits},
      {"memory_bytes", d.memory_bytes},
      {"l2_cache_bytes", d.l2_cache_bytes},
      {"theoretical_bandwidth_gbps", d.theoretical_bandwidth_gbps},
      {"theoretical_fp32_gflops", d.theoretical_fp32_gflops ? json(*d.theoretical_fp32_gflops) : json(nullptr)},
      {"driver_version", d.driver_version},
      {"runtime_version", d.runtime_version},
      {"context_creation_ms", d.context_creation_ms},
  };
}

json ceilings_json(const Ceilings& c) {
  json j = json::object();
  if (c.copy) {
    j["copy_gbps"] = c.copy->gbps;
    j["copy_bytes"] = c.copy->bytes;
    j["copy_median_ms"] = c.copy->median_ms;
    j["copy_method"] = c.copy->method;
  }
  if (c.sgemm) {
    j["sgemm_gflops"] = c.sgemm->gflops;
    j["sgemm_size"] = c.sgemm->size;
    j["sgemm_median_ms"] = c.sgemm->median_ms;
    j["sgemm_method"] = c.sgemm->method;
  }
  return j;
}

json measurement_json(const MeasurementSettings& m) {
  if (m.check_only) return {{"mode", "check"}};
  json j = {{"mode", "timed"},
            {"gpu_cache_mode", m.gpu_cold ? "cold" : "hot"},
            {"gpu_timing", m.gpu_host_clock ? "host" : "events"},
            {"cpu_cache_mode", "hot"},
            {"noise_target", m.rule.target_rel_noise},
            {"min_samples", m.rule.min_samples},
            {"min_time_s", m.rule.min_time_s},
            {"enough_samples", m.rule.enough_samples},
            {"max_time_s", m.rule.max_time_s},
            {"cap_min_samples", m.rule.cap_min_samples},
            {"stops_early_above_target", m.rule.stop_early_above_target},
            {"sm_clock", nullptr}};
  if (m.l2_flush_bytes) j["l2_flush_bytes"] = *m.l2_flush_bytes;
  if (const auto& clock = m.sm_clock) {
    if (clock->unavailable.empty())
      j["sm_clock"] = {{"source", "NVML, read after each sample"},
                       {"default_mhz", clock->default_mhz},
                       {"throttle_below_mhz", clock->throttle_below_mhz}};
    else
      j["sm_clock"] = {{"unavailable", clock->unavailable}};
  }
  return j;
}

static json task_json(const TaskInfo& t) {
  json task = {{"pid", t.pid}};
  for (const auto& [name, value] : t.environment) task[name] = value;
  return task;
}

json host_json(const HostInfo& h) {
  return {{"hostname", h.hostname},
          {"cpu_model", h.cpu_model},
          {"logical_cpus", h.logical_cpus},
          {"openmp_threads", h.openmp_threads},
          {"memory_bytes", h.memory_bytes},
          {"os", h.os}};
}

const char* source_commit() { return LB_SOURCE_COMMIT; }
const char* package_version() { return LB_PACKAGE_VERSION; }
std::string version_line() {
  const std::string note = LB_VERSION_NOTE;
  return std::string("layerbench ") + package_version() + " (commit " + source_commit() +
         (note.empty() ? "" : ": " + note) + ")";
}

json context_json(const RunContext& c) {
  json layerbench = {{"version", package_version()},     {"source_commit", source_commit()},
                     {"schema_version", kSchemaVersion}, {"seed", c.seed},
                     {"command_line", c.command_line},   {"suite_wall_s", c.suite_wall_s}};
  if (c.interrupted)
    layerbench["interrupted"] = {{"signal", c.interrupted->signal},
                                 {"cases_planned", c.interrupted->cases_planned},
                                 {"cases_started", c.interrupted->cases_started}};
  json context = {
      {"date", c.date},
      {"executable", c.executable},
      {"layerbench", layerbench},
      {"host", host_json(c.host)},
      {"host_name", c.host.hostname},
      {"task", task_json(c.task)},
      {"device", c.device ? device_json(*c.device) : json(nullptr)},
      {"peaks", c.peaks ? peaks_json(*c.peaks) : json(nullptr)},
      {"ceilings", ceilings_json(c.ceilings)},
      {"context_probe", c.context_probe ? probe_json(*c.context_probe) : json(nullptr)},
      {"measurement", measurement_json(c.measurement)},
      {"layers", json::object()},
      {"workloads", json::object()},
  };
  if (!c.run_id.empty()) context["run_id"] = c.run_id;
  if (!c.gpu_unavailable_reason.empty()) context["gpu_unavailable_reason"] = c.gpu_unavailable_reason;
  for (const auto& [name, why] : c.layers_unavailable) context["layers_unavailable"][name] = why;
  for (const auto& [name, layer] : c.layers) context["layers"][name] = layer_json(layer);
  for (const Workload* w : c.workloads) context["workloads"][w->name()] = descriptor_json(w->descriptor());
  if (c.ladder)
    context["ladder"] = {{"workload", c.ladder->workload}, {"layer", c.ladder->layer}, {"size", c.ladder->size},
                         {"rungs", c.ladder->rungs},       {"top_line", c.ladder->top_line}};
  add_cpu_info(context, c.cpu);
  return context;
}

json results_json(const RunRecord& run) {
  return {{"context", context_json(run.context)}, {"benchmarks", benchmarks_json(run.context, run.cases)}};
}

}  // namespace lb
