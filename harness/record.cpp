#include "harness/record.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/gpu.h"
#include "harness/host_info.h"
#include "harness/reporter.h"
#include "harness/sizes.h"
#include "source_commit.h"  // generated: cmake/source_commit.cmake

namespace lb {
namespace {

nlohmann::json buffer_json(const BufferSpec& b) {
  nlohmann::json extents = nlohmann::json::array();
  for (const Dim d : b.extents) extents.push_back(to_string(d));
  return {{"name", b.name}, {"extents", extents}};
}

// What the context records of a workload: its descriptor (workloads/workload.h), which the reports
// read instead of knowing workloads by name.
nlohmann::json descriptor_json(const WorkloadDescriptor& d) {
  nlohmann::json inputs = nlohmann::json::array(), arguments = nlohmann::json::array();
  for (const BufferSpec& b : d.inputs) inputs.push_back(buffer_json(b));
  for (const KernelArg& a : d.kernel_args) arguments.push_back({{"name", a.name}, {"type", a.type}});
  return {{"figure", to_string(d.figure)},
          {"summary", d.summary},
          {"size_form", to_string(d.size_form)},
          {"inputs", inputs},
          {"output", buffer_json(d.output)},
          {"kernel_arguments", arguments},
          {"ladder_default_size", d.ladder_default_size.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.ladder_default_size)},
          {"vendor", d.vendor.library.empty() ? nlohmann::json(nullptr)
                                              : nlohmann::json{{"library", d.vendor.library}, {"routine", d.vendor.routine}}}};
}

// JSON has no NaN or infinity: such figures become null.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json case_fields(const CaseResult& r, const nlohmann::json& context) {
  const Case& c = r.spec;
  nlohmann::json j = {
      {"workload", c.workload->name()},
      {"layer", c.layer->name},
      {"status", to_string(r.status)},
      {"verified", r.verdict.passed},
      {"seed", r.seed},
      {"bytes_moved", c.workload->bytes_moved(c.shape)},
      {"flops", c.workload->flops(c.shape)},
  };
  switch (c.workload->size_form()) {
    case SizeForm::kProduct: j["k"] = c.shape.k; [[fallthrough]];
    case SizeForm::kMatrix: j["m"] = c.shape.m; [[fallthrough]];
    case SizeForm::kCount: j["n"] = c.shape.n;
  }
  if (c.rung)  // the kernel was this ladder rung's, not the layer's own
    j["rung"] = {{"id", c.rung->id()},       {"number", c.rung->number}, {"name", c.rung->name},
                 {"title", c.rung->title},   {"file", c.rung->file},     {"kernel", c.rung->kernel}};
  if (!r.message.empty()) j["message"] = r.message;
  if (r.checked) {
    j["max_rel_error"] = number(r.verdict.max_rel_error);
    j["tolerance"] = r.verdict.tolerance;
    j["end_to_end_ms"] = r.end_to_end_ms;
    j["allocate_ms"] = r.allocate_ms;
    j["prepare_wall_s"] = r.prepare_wall_s;
  }
  if (r.stats.count > 0) {
    if (c.workload->figure() == Figure::kLaunchTime)
      j["us_per_launch"] = r.stats.median_ms * 1e3 / static_cast<double>(c.workload->launches(c.shape));
    j["gbps"] = r.gbps;
    j["gflops"] = r.gflops;
    j["median_ms"] = r.stats.median_ms;
    j["mean_ms"] = r.stats.mean_ms;
    j["min_ms"] = r.stats.min_ms;
    j["max_ms"] = r.stats.max_ms;
    j["rel_stddev"] = r.stats.rel_stddev;
    j["samples"] = r.stats.count;
    const auto& ceilings = context.value("ceilings", nlohmann::json::object());
    // Each rate against the ceiling measured in this run and against the datasheet-style peak.
    const auto& device = context.value("device", nlohmann::json());
    auto fraction = [&](double value, const nlohmann::json& of) -> nlohmann::json {
      if (!c.layer->on_gpu || !of.is_number() || of.get<double>() <= 0) return nullptr;
      return value / of.get<double>();
    };
    j["fraction_of_copy"] = fraction(r.gbps, ceilings.value("copy_gbps", nlohmann::json()));
    j["fraction_of_theoretical_bandwidth"] =
        fraction(r.gbps, device.is_object() ? device.value("theoretical_bandwidth_gbps", nlohmann::json()) : nullptr);
    j["fraction_of_cublas"] = fraction(r.gflops, ceilings.value("sgemm_gflops", nlohmann::json()));
    j["fraction_of_theoretical_fp32"] =
        fraction(r.gflops, device.is_object() ? device.value("theoretical_fp32_gflops", nlohmann::json()) : nullptr);
    j["cache_mode"] = r.l2_flushed ? "cold" : "hot";
    j["stream_held"] = r.stream_held;
    j["noise_target_reached"] = r.noise_target_reached();
    j["stop_reason"] = to_string(r.stop_reason);
    j["measurement_wall_s"] = r.measurement_wall_s;
    j["throttled_samples"] = r.throttled_samples;
    j["mean_sm_clock_mhz"] = r.mean_sm_clock_mhz > 0 ? nlohmann::json(r.mean_sm_clock_mhz) : nlohmann::json(nullptr);
    j["first_run_ms"] = r.first_run_ms;
  }
  if (r.plausibility) {  // timed cases: what the rate was held to (device_peaks.h), or why nothing
    const RateLimit& p = *r.plausibility;
    if (p.checked())
      j["plausibility"] = {{"limit", p.limit},
                           {"unit", p.unit()},
                           {"fraction_of_limit", number(p.rate(r.gbps, r.gflops) / p.limit)},
                           {"bound", p.bound},
                           {"derivation", p.derivation}};
    else
      j["plausibility"] = {{"not_checked", p.not_checked}};
  }
  if (!r.one_time_costs.entries().empty()) j["one_time_costs"] = r.one_time_costs.to_json();
  if (!r.one_time_costs.notes().empty()) j["notes"] = r.one_time_costs.notes();
  return j;
}

// Google Benchmark's (1.8) fields: a skip is not an error.
void add_not_ok_fields(nlohmann::json& b, const CaseResult& r) {
  if (r.status == CaseStatus::kSkipped) {
    b["skipped"] = true;
    b["skip_message"] = r.message;
  } else if (r.status != CaseStatus::kOk) {
    b["error_occurred"] = true;
    b["error_message"] = r.message;
  }
}

// A case Google Benchmark did not run (a check; a GPU case skipped once the context died): one
// entry in its layout without a time, as Google Benchmark writes a run that did not time.
nlohmann::json untimed_entry(const CaseResult& r, int family) {
  const std::string name = r.spec.name();
  return {{"name", name},       {"family_index", family}, {"per_family_instance_index", 0},
          {"run_name", name},   {"run_type", "iteration"}, {"repetitions", 1},
          {"repetition_index", 0}, {"threads", 1},         {"iterations", 0},
          {"real_time", 0},     {"cpu_time", 0},           {"time_unit", "ms"}};
}

}  // namespace

nlohmann::json run_context(const RunInfo& run, const SuitePlan& plan, const Environment& env,
                           const LayerSessions& sessions, const nlohmann::json& benchmark_context) {
  nlohmann::json context = {
      {"date", run.started_at},
      {"executable", run.executable},
      {"library_build_type", google_benchmark_build_type()},
      {"layerbench", {{"version", LB_VERSION}, {"source_commit", LB_SOURCE_COMMIT}, {"schema_version", kSchemaVersion},
                      {"seed", env.options.seed},
                      {"command_line", run.command_line}, {"suite_wall_s", run.suite_wall_s}}},
      {"host", host_json()},
      {"device", env.device},
      {"peaks", env.peaks ? peaks_json(*env.peaks) : nlohmann::json(nullptr)},
      {"ceilings", env.ceilings},
      {"context_probe", env.context_probe ? env.context_probe->record() : nlohmann::json(nullptr)},
      {"measurement", env.measurement},
      {"layers", nlohmann::json::object()},
      {"workloads", nlohmann::json::object()},
  };
  context["host_name"] = context["host"]["hostname"];
  // Why there is no GPU (the probe's reason, nothing of any layer's), and apart from it why each
  // layer left out was: a Python layer's missing package is a layer's reason, not the GPU's.
  if (!plan.unavailable.empty()) {
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) context["gpu_unavailable_reason"] = why;
    for (const auto& [reason, names] : plan.unavailable)
      for (const auto& name : names) context["layers_unavailable"][name] = reason;
  }
  for (const Layer* l : plan.layers) context["layers"][l->name] = sessions.record(*l);
  for (const Workload* w : plan.workloads)
    context["workloads"][w->name()] = descriptor_json(w->descriptor());
  context.update(benchmark_context);
  return context;
}

nlohmann::json results_json(const nlohmann::json& context, const std::vector<CaseResult>& results) {
  nlohmann::json benchmarks = nlohmann::json::array();
  int family = 0;
  for (const CaseResult& r : results) {
    if (r.status == CaseStatus::kNotRun) continue;  // filtered out by --benchmark_filter: never run
    const nlohmann::json fields = case_fields(r, context);
    if (r.runs.empty()) {
      nlohmann::json b = untimed_entry(r, family++);
      add_not_ok_fields(b, r);
      b.update(fields);
      benchmarks.push_back(std::move(b));
      continue;
    }
    for (const auto& run : r.runs) {
      nlohmann::json b = {
          {"name", run.benchmark_name()},
          {"family_index", family},
          {"per_family_instance_index", 0},
          {"run_name", run.run_name.str()},
          {"run_type", run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate ? "aggregate" : "iteration"},
          {"repetitions", run.repetitions},
          {"repetition_index", run.repetition_index},
          {"threads", run.threads},
          {"iterations", run.iterations},
          {"real_time", number(run.GetAdjustedRealTime())},
          {"cpu_time", number(run.GetAdjustedCPUTime())},
          {"time_unit", benchmark::GetTimeUnitString(run.time_unit)},
      };
      if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate) b["aggregate_name"] = run.aggregate_name;
      add_not_ok_fields(b, r);
      b.update(fields);
      benchmarks.push_back(std::move(b));
    }
    ++family;
  }
  return {{"context", context}, {"benchmarks", benchmarks}};
}

}  // namespace lb
