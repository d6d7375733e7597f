// The benchmarks array of the results (results_json.h): one entry per case, or per repetition of a
// case followed by its aggregates. Google Benchmark's fields come from the case's
// benchmark::BenchmarkReporter::Run (benchmark_run.h), as its JSON reporter names them; layerbench's
// from the CaseResult.
#include <cmath>

#include "harness/benchmark_run.h"
#include "harness/results_json.h"

namespace lb {
namespace {

using nlohmann::json;

// JSON has no NaN or infinity: such figures become null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json number(std::optional<double> v) { return v ? number(*v) : json(nullptr); }

// Which case: what an aggregate entry carries of it too.
json identity_fields(const CaseResult& r) {
  const Case& c = r.spec;
  json j = {{"workload", c.workload->name()}, {"layer", c.layer->name}};
  switch (c.workload->size_form()) {
    case SizeForm::kProduct: j["k"] = c.shape.k; [[fallthrough]];
    case SizeForm::kMatrix: j["m"] = c.shape.m; [[fallthrough]];
    case SizeForm::kCount: j["n"] = c.shape.n;
  }
  if (c.rung)  // the kernel was this ladder rung's, not the layer's own
    j["rung"] = {{"id", c.rung->id()},     {"number", c.rung->number}, {"name", c.rung->name},
                 {"title", c.rung->title}, {"file", c.rung->file},     {"kernel", c.rung->kernel}};
  return j;
}

json plausibility_json(const RateLimit& p, const CaseResult& r) {
  if (!p.checked()) return {{"not_checked", p.not_checked}};
  return {{"limit", p.limit},
          {"unit", p.unit()},
          {"fraction_of_limit", number(p.rate(r.gbps, r.gflops) / p.limit)},
          {"bound", p.bound},
          {"derivation", p.derivation}};
}

json machine_load_json(const MachineLoad& load) {
  json j = {{"load_avg_1m", number(load.load_avg_1m)},
            {"other_cpus", number(load.other_cpus)},
            {"own_cpus", number(load.own_cpus)},
            {"cpu_window_s", load.cpu_window_s},
            {"cpus", load.cpus}};
  if (!load.other_cpus_unavailable.empty()) j["other_cpus_unavailable"] = load.other_cpus_unavailable;
  j["other_gpu_pids"] = load.other_gpu_pids ? json(*load.other_gpu_pids) : json(nullptr);
  if (!load.other_gpu_pids) j["gpu_processes_unavailable"] = load.gpu_processes_unavailable;
  if (load.threads_pinned) j["threads_pinned"] = *load.threads_pinned;
  if (!load.threads_unpinned_why.empty()) j["threads_unpinned_why"] = load.threads_unpinned_why;
  return j;
}

json case_fields(const CaseResult& r, const RunContext& context) {
  const Case& c = r.spec;
  json j = identity_fields(r);
  j["status"] = to_string(r.status);
  j["verified"] = r.verdict.passed;
  j["seed"] = r.seed;
  j["bytes_moved"] = c.workload->bytes_moved(c.shape);
  j["flops"] = c.workload->flops(c.shape);
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
    // Each rate against the ceiling measured in this run and against the datasheet-style peak.
    const CaseFractions f = case_fractions(r, context);
    j["fraction_of_copy"] = number(f.of_copy);
    j["fraction_of_theoretical_bandwidth"] = number(f.of_theoretical_bandwidth);
    j["fraction_of_cublas"] = number(f.of_cublas);
    j["fraction_of_theoretical_fp32"] = number(f.of_theoretical_fp32);
    j["cache_mode"] = r.l2_flushed ? "cold" : "hot";
    j["stream_held"] = r.stream_held;
    j["noise_target_reached"] = r.noise_target_reached();
    j["stop_reason"] = to_string(r.stop_reason);
    j["measurement_wall_s"] = r.measurement_wall_s;
    j["throttled_samples"] = r.throttled_samples;
    j["mean_sm_clock_mhz"] = r.mean_sm_clock_mhz > 0 ? json(r.mean_sm_clock_mhz) : json(nullptr);
    j["first_run_ms"] = r.first_run_ms;
    j["timed_by"] = r.host_timed ? "host" : "device";
    j["samples_ms"] = r.samples_ms;
    if (r.load.read) j["machine_load"] = machine_load_json(r.load);
    j["busy"] = r.busy;
  }
  if (r.plausibility) j["plausibility"] = plausibility_json(*r.plausibility, r);  // what the rate was held to
  if (!r.one_time_costs.entries().empty()) j["one_time_costs"] = r.one_time_costs.to_json();
  if (!r.one_time_costs.notes().empty()) j["notes"] = r.one_time_costs.notes();
  return j;
}

// Google Benchmark's fields of one run, as its JSON reporter writes them (besides
// repetition_index, which layerbench writes on aggregates too, as -1); a percentage aggregate's
// times are the fraction itself.
json run_fields(const BenchmarkRun& run) {
  const bool aggregate = run.run_type == BenchmarkRun::RT_Aggregate;
  const bool percentage = aggregate && run.aggregate_unit == benchmark::kPercentage;
  json b = {
      {"name", run.benchmark_name()},
      {"family_index", run.family_index},
      {"per_family_instance_index", run.per_family_instance_index},
      {"run_name", run.run_name.str()},
      {"run_type", aggregate ? "aggregate" : "iteration"},
      {"repetitions", run.repetitions},
      {"repetition_index", run.repetition_index},
      {"threads", run.threads},
      {"iterations", run.iterations},
      {"real_time", number(percentage ? run.real_accumulated_time : run.GetAdjustedRealTime())},
      {"cpu_time", number(percentage ? run.cpu_accumulated_time : run.GetAdjustedCPUTime())},
      {"time_unit", benchmark::GetTimeUnitString(run.time_unit)},
  };
  if (aggregate) b["aggregate_name"] = run.aggregate_name;
  return b;
}

// Google Benchmark's (1.8) fields: a skip is not an error. Interrupted cases are errors, so that
// its tools leave their partial measurement out.
void add_not_ok_fields(json& b, const CaseResult& r) {
  if (r.status == CaseStatus::kSkipped) {
    b["skipped"] = true;
    b["skip_message"] = r.message;
  } else if (r.status != CaseStatus::kOk) {
    b["error_occurred"] = true;
    b["error_message"] = r.message;
  }
}

}  // namespace

json benchmarks_json(const RunContext& context, const std::vector<CaseResult>& cases) {
  json benchmarks = json::array();
  std::int64_t family = -1;
  std::vector<BenchmarkRun> repetitions;  // of the case under way
  const CaseResult* first = nullptr;
  const auto close_case = [&] {
    for (const BenchmarkRun& a : aggregate_runs(repetitions)) {
      json b = run_fields(a);
      b.update(identity_fields(*first));
      benchmarks.push_back(std::move(b));
    }
    repetitions.clear();
  };
  for (const CaseResult& r : cases) {
    if (r.status == CaseStatus::kNotRun) continue;
    if (r.repetition_index == 0) {  // a new case
      if (first) close_case();
      first = &r;
      ++family;
    }
    const BenchmarkRun run = benchmark_run(r, family);
    json b = run_fields(run);
    add_not_ok_fields(b, r);
    b.update(case_fields(r, context));
    benchmarks.push_back(std::move(b));
    if (r.benchmarked) repetitions.push_back(run);
  }
  if (first) close_case();
  return benchmarks;
}

}  // namespace lb
