#include "app/summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <map>
#include <set>
#include <string>

namespace lb {

namespace {

bool is_launch(const CaseResult& r) { return r.spec.workload->figure() == Figure::kLaunchTime; }

// The layer column's width: wider for a rung ("runtime:03_smem_tiling").
int layer_column_width(const std::vector<CaseResult>& results) {
  int width = 13;
  for (const CaseResult& r : results) width = std::max(width, static_cast<int>(r.spec.layer_label().size()));
  return width;
}

// "ok", or the status and why ("failed: verification failed: ..."); "ok, busy" for a case that
// ran while another process used what it is timed on (print_busy says what).
std::string status_text(const CaseResult& r) {
  if (r.status == CaseStatus::kOk) return r.busy.empty() ? "ok" : "ok, busy";
  return std::string(to_string(r.status)) + ": " + r.message;
}

void print_cases(const std::vector<CaseResult>& results, const RunContext& context) {
  const int lw = layer_column_width(results);
  std::printf("\n%-12s %-*s %-15s %11s %7s %10s %10s %6s %11s  %s\n", "workload", lw, "layer", "size", "median ms",
              "noise", "GB/s", "GFLOP/s", "%copy", "e2e ms", "status");
  const Ceilings& ceilings = context.ceilings;
  bool missed_noise = false;
  for (const CaseResult& r : results) {
    if (r.status == CaseStatus::kNotRun || is_launch(r)) continue;
    const std::string size = r.spec.workload->size_label(r.spec.shape);
    const std::string status = status_text(r);
    if (r.stats.count == 0) {
      std::printf("%-12s %-*s %-15s %11s %7s %10s %10s %6s %11s  %s\n", r.spec.workload->name().c_str(), lw,
                  r.spec.layer_label().c_str(), size.c_str(), "-", "-", "-", "-", "-", "-", status.c_str());
      continue;
    }
    char fraction[16] = "-", noise[16];
    if (const auto of_copy = case_fractions(r, context).of_copy)
      std::snprintf(fraction, sizeof fraction, "%.0f%%", 100.0 * *of_copy);
    std::snprintf(noise, sizeof noise, "%.1f%%%s", 100.0 * r.stats.rel_stddev, r.noise_target_reached() ? "" : "*");
    missed_noise |= !r.noise_target_reached();
    std::printf("%-12s %-*s %-15s %11.4f %7s %10.1f %10.1f %6s %11.3f  %s\n", r.spec.workload->name().c_str(), lw,
                r.spec.layer_label().c_str(), size.c_str(), r.stats.median_ms, noise, r.gbps, r.gflops, fraction,
                r.end_to_end_ms, status.c_str());
  }
  if (missed_noise)
    std::printf("* noise (relative standard deviation of the samples) above the target: sampling stopped because "
                "more samples would not bring it under (settled, or out of reach), or at the time cap (stop_reason in the JSON)\n");
  if (ceilings.copy && ceilings.copy->gbps > 0)
    std::printf("memory ceiling: device-to-device copy %.1f GB/s (bytes read + written)\n", ceilings.copy->gbps);
  if (ceilings.sgemm)
    std::printf("matmul ceiling: cuBLAS SGEMM %s %.1f GFLOP/s (fp32, no TF32)\n", ceilings.sgemm->size.c_str(),
                ceilings.sgemm->gflops);
  if (const auto& peaks = context.peaks) {
    std::printf("plausibility: a GPU case faster than the theoretical DRAM peak (%.1f GB/s, raised where part of the "
                "working set fits in the L2)",
                peaks->dram_gbps);
    if (peaks->fp32_gflops > 0) std::printf(" or the fp32 peak (%.1f GFLOP/s)", peaks->fp32_gflops);
    std::printf(" fails: the kernel skipped work\n");
  }
}

// Launch-overhead cases: microseconds per launch, one column per launch workload (Figure::kLaunchTime:
// launch_async's throughput, launch_sync's round trip), in the order the workloads are listed.
void print_launch_overhead(const std::vector<CaseResult>& results) {
  std::vector<const Workload*> columns;
  std::map<std::string, std::map<const Workload*, std::string>> table;  // layer -> workload -> text
  for (const CaseResult& r : results) {
    if (!is_launch(r) || r.status == CaseStatus::kNotRun) continue;
    const auto launches = static_cast<double>(r.spec.workload->launches(r.spec.shape));
    char text[64];
    if (r.stats.count > 0)
      std::snprintf(text, sizeof text, "%.2f us (noise %.1f%%)", r.stats.median_ms * 1e3 / launches, 100.0 * r.stats.rel_stddev);
    else
      std::snprintf(text, sizeof text, "%s", to_string(r.status));
    table[r.spec.layer->name][r.spec.workload] = text;
  }
  if (table.empty()) return;
  for (const Workload* w : all_workloads())
    for (const auto& [layer, row] : table)
      if (row.count(w) && std::find(columns.begin(), columns.end(), w) == columns.end()) columns.push_back(w);
  std::printf("\nLaunch overhead, per launch:  ");
  for (const Workload* w : columns) std::printf(" %-24s", w->name().c_str());
  std::printf("\n");
  for (const auto& [layer, row] : table) {
    std::printf("  %-28s", layer.c_str());
    for (const Workload* w : columns) std::printf(" %-24s", row.count(w) ? row.at(w).c_str() : "-");
    std::printf("\n");
  }
  for (const Workload* w : columns) std::printf("  %s: %s\n", w->name().c_str(), w->summary().c_str());
}

// The first case of each (layer, workload) in this process: its first run paid the lazy loading.
std::vector<const CaseResult*> first_cases(const std::vector<CaseResult>& results) {
  std::vector<const CaseResult*> firsts;
  std::set<std::string> seen;
  for (const CaseResult& r : results)
    if (r.stats.count > 0 && !is_launch(r) && seen.insert(r.spec.layer_label() + "/" + r.spec.workload->name()).second)
      firsts.push_back(&r);
  return firsts;
}

// A case's one-time costs are paid once, by its first repetition; later ones repeat them in the
// record (each entry of the results is a whole case) but the totals count them once.
bool first_repetition(const CaseResult& r) { return r.repetition_index == 0; }

// Every one-time cost, one line each (--verbose): when a layer's session opened, during a case's
// allocate(), and the first run of each (layer, workload) against its steady-state median.
void print_each_one_time_cost(const std::vector<CaseResult>& results, const RunContext& context) {
  std::printf("\nOne-time costs (before the first useful result):\n");
  const auto line = [](const std::string& who, const std::string& what, double ms) {
    std::printf("  %-13s %-52s %10.3f ms\n", who.c_str(), what.c_str(), ms);
  };
  if (context.device) line("process", "CUDA context creation (first CUDA call)", context.device->context_creation_ms);
  for (const auto& [layer, record] : context.layers)
    for (const OneTimeCost& cost : record.one_time_costs.entries()) line(layer, cost.what, cost.ms);
  for (const CaseResult& r : results) {
    if (!first_repetition(r)) continue;
    for (const OneTimeCost& cost : r.one_time_costs.entries())
      line(r.spec.layer_label(), cost.what + " (" + r.spec.workload->name() + " " +
                                   r.spec.workload->size_label(r.spec.shape) + ")", cost.ms);
  }
  for (const CaseResult* r : first_cases(results))
    line(r->spec.layer_label(), "first run " + r->spec.workload->name() + " " +
                                    r->spec.workload->size_label(r->spec.shape) + " (median " +
                                    std::to_string(r->stats.median_ms).substr(0, 7) + " ms)",
         r->first_run_ms);
}

// One line per layer: its one-time costs added up by kind (one_time_cost.h), then the first runs.
void print_one_time_costs_per_layer(const std::vector<CaseResult>& results, const RunContext& context) {
  constexpr CostKind kKinds[] = {CostKind::kImport, CostKind::kContext, CostKind::kCompile, CostKind::kLoad,
                                 CostKind::kSetup};
  constexpr int kColumns = std::size(kKinds) + 1;  // + first runs
  std::vector<std::string> order;
  std::map<std::string, std::array<double, kColumns>> rows;
  const auto add = [&](const std::string& layer, int column, double ms) {
    if (!rows.count(layer)) order.push_back(layer);
    rows[layer][column] += ms;
  };
  const auto column_of = [&](CostKind kind) { return int(std::find(std::begin(kKinds), std::end(kKinds), kind) - kKinds); };
  if (context.device) add("process", column_of(CostKind::kContext), context.device->context_creation_ms);
  for (const auto& [layer, record] : context.layers)
    for (const OneTimeCost& cost : record.one_time_costs.entries()) add(layer, column_of(cost.kind), cost.ms);
  for (const CaseResult& r : results)
    if (first_repetition(r))
      for (const OneTimeCost& cost : r.one_time_costs.entries())
        add(r.spec.layer_label(), column_of(cost.kind), cost.ms);
  for (const CaseResult* r : first_cases(results)) add(r->spec.layer_label(), kColumns - 1, r->first_run_ms);
  if (rows.empty()) return;
  std::printf("\nOne-time costs per layer, ms (each one: --verbose):\n  %-24s", "layer");
  for (CostKind kind : kKinds) std::printf(" %9s", to_string(kind));
  std::printf(" %10s %10s\n", "first runs", "total");
  for (const std::string& layer : order) {
    std::printf("  %-24s", layer.c_str());
    double total = 0;
    for (int c = 0; c < kColumns; ++c) {
      const double ms = rows[layer][c];
      total += ms;
      if (ms > 0) std::printf(c + 1 < kColumns ? " %9.1f" : " %10.1f", ms);
      else std::printf(c + 1 < kColumns ? " %9s" : " %10s", "-");
    }
    std::printf(" %10.1f\n", total);
  }
}

// A context probe (context_probe.h) that moved: which reading, by how much, and the layer the
// plan ran last because it changes the context.
void print_context_probe(const RunContext& context) {
  if (!context.context_probe || context.context_probe->size() < 2) return;
  const std::vector<ProbeReading>& readings = *context.context_probe;
  const double start = readings[0].us_per_kernel;
  for (std::size_t i = 1; i < readings.size(); ++i) {
    const double us = readings[i].us_per_kernel;
    if (std::abs(us / start - 1.0) < 0.03) continue;
    std::printf("context probe: a graph replay's kernels took %.3f us each at the start and %.3f us %s%s\n", start, us,
                readings[i].when.c_str(),
                i + 1 == readings.size() ? " (the layers that change the context run last: docs/methodology.md)" : "");
  }
}

// The cases that ran on a busy machine (machine_load.h), with why, as Google Benchmark warns of CPU
// scaling: their times are not this machine's alone, and `compare` calls their verdicts unclear.
void print_busy(const std::vector<CaseResult>& results) {
  constexpr std::size_t kShown = 20;
  std::vector<const CaseResult*> busy;
  for (const CaseResult& r : results)
    if (!r.busy.empty()) busy.push_back(&r);
  if (busy.empty()) return;
  std::printf("\nWARNING: %zu case(s) ran on a busy machine (\"busy\" in the JSON; compare calls them unclear):\n",
              busy.size());
  for (std::size_t i = 0; i < busy.size() && i < kShown; ++i) {
    std::string why;
    for (const std::string& reason : busy[i]->busy) why += (why.empty() ? "" : "; ") + reason;
    std::printf("  %-40s %s\n", busy[i]->spec.name().c_str(), why.c_str());
  }
  if (busy.size() > kShown) std::printf("  ... and %zu more\n", busy.size() - kShown);
}

// Cases, not repetitions: a case that repeats is one case (it stops repeating once one fails).
void print_totals(const std::vector<CaseResult>& results, const RunContext& context, const std::string& out_path) {
  const auto cases = std::count_if(results.begin(), results.end(), first_repetition);
  const auto failed = std::count_if(results.begin(), results.end(),
                                    [](const CaseResult& r) { return r.status == CaseStatus::kFailed; });
  std::printf("%ld cases in %.1f s, %ld failed; results written to %s\n", static_cast<long>(cases),
              context.suite_wall_s, static_cast<long>(failed), out_path.c_str());
}

}  // namespace

void print_summary(const std::vector<CaseResult>& results, const RunContext& context, const std::string& out_path,
                   bool verbose) {
  if (results.empty()) return print_totals(results, context, out_path);
  print_cases(results, context);
  print_launch_overhead(results);
  if (verbose) print_each_one_time_cost(results, context);
  else print_one_time_costs_per_layer(results, context);
  print_context_probe(context);
  print_busy(results);
  print_totals(results, context, out_path);
}

void print_check_summary(const std::vector<CaseResult>& results, const RunContext& context,
                         const std::string& out_path) {
  if (results.empty()) return print_totals(results, context, out_path);
  const int lw = layer_column_width(results);
  std::printf("\n%-12s %-*s %-15s %13s %10s %11s  %s\n", "workload", lw, "layer", "size", "max rel error",
              "tolerance", "e2e ms", "status");
  for (const CaseResult& r : results) {
    const std::string status = status_text(r);
    char error[32] = "-", tolerance[32] = "-", e2e[32] = "-";
    if (r.checked) {
      std::snprintf(error, sizeof error, "%.2e", r.verdict.max_rel_error);
      std::snprintf(tolerance, sizeof tolerance, "%.1e", r.verdict.tolerance);
      std::snprintf(e2e, sizeof e2e, "%.3f", r.end_to_end_ms);
    }
    std::printf("%-12s %-*s %-15s %13s %10s %11s  %s\n", r.spec.workload->name().c_str(), lw,
                r.spec.layer_label().c_str(), r.spec.workload->size_label(r.spec.shape).c_str(), error, tolerance, e2e,
                status.c_str());
  }
  std::printf("checked once each, not timed (--check)\n");
  print_totals(results, context, out_path);
}

}  // namespace lb
