#include "app/ladder_table.h"

#include <cstdio>

#include "common/format_number.h"

namespace lb {
namespace {

std::string percent(double value, double of) {
  return of > 0 && value > 0 ? format_number("%.1f%%", 100.0 * value / of) : "-";
}

bool ok(const CaseResult& r) { return r.status == CaseStatus::kOk && r.stats.count > 0; }

}  // namespace

std::string vendor_library(const Workload& workload) {
  const std::string& library = workload.descriptor().vendor.library;
  return library.empty() ? "vendor" : library;
}

std::string ladder_table(const std::vector<CaseResult>& results, const Ceilings& ceilings) {
  if (results.empty()) return "no ladder cases ran\n";
  const Case& first = results.front().spec;
  const Workload& w = *first.workload;
  const bool matmul = w.figure() == Figure::kCompute;  // GFLOP/s; else GB/s
  const CaseResult* vendor = nullptr;
  for (const CaseResult& r : results)
    if (!r.spec.rung && ok(r)) vendor = &r;
  const auto rate = [&](const CaseResult& r) { return matmul ? r.gflops : r.gbps; };

  const double copy = ceilings.copy ? ceilings.copy->gbps : 0.0;
  const double sgemm = ceilings.sgemm ? ceilings.sgemm->gflops : 0.0;
  const std::string library = vendor_library(w);
  // The reference every rung is a fraction of: the vendor line, else the run's ceiling.
  std::string reference_name, reference_note;
  double reference = 0;
  if (vendor) {
    reference_name = library;
    reference = rate(*vendor);
    reference_note = library + " through the vendor layer, at this size, in this run";
  } else if (matmul && sgemm > 0) {
    reference_name = library;
    reference = sgemm;
    reference_note = "the cuBLAS SGEMM ceiling measured at the start of this run (" + ceilings.sgemm->size + ", " +
                     format_number("%.1f", sgemm) + " GFLOP/s; no vendor layer here)";
  }
  const bool copy_column = !matmul && copy > 0;

  std::string text = "\n" + w.name() + " ladder at " + w.size_label(first.shape) + " through " + first.layer->name +
                     "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-30s %11s %10s %9s %9s %9s  %s\n", "rung", "median ms",
                matmul ? "GFLOP/s" : "GB/s", reference > 0 ? ("%" + reference_name).c_str() : "",
                copy_column ? "%copy" : "", "speed-up", "status");
  text += line;
  const CaseResult* below = nullptr;
  const auto row = [&](const std::string& label, const CaseResult& r, const std::string& speedup) {
    const std::string status = r.status == CaseStatus::kOk ? "ok" : std::string(to_string(r.status)) + ": " + r.message;
    if (!ok(r)) {
      std::snprintf(line, sizeof line, "%-30s %11s %10s %9s %9s %9s  %s\n", label.c_str(), "-", "-", "-", "-", "-",
                    status.c_str());
    } else {
      std::snprintf(line, sizeof line, "%-30s %11.4f %10.1f %9s %9s %9s  %s\n", label.c_str(), r.stats.median_ms,
                    rate(r), reference > 0 ? percent(rate(r), reference).c_str() : "",
                    copy_column ? percent(r.gbps, copy).c_str() : "", speedup.c_str(), status.c_str());
    }
    text += line;
  };
  for (const CaseResult& r : results) {
    if (!r.spec.rung) continue;
    const std::string id = r.spec.rung->id();
    std::string speedup = "-";
    if (below && ok(*below) && ok(r)) speedup = format_number("%.2fx", below->stats.median_ms / r.stats.median_ms);
    row(id.substr(id.find('/') + 1), r, speedup);
    below = &r;
  }
  for (const CaseResult& r : results)
    if (!r.spec.rung) {
      std::string speedup = "-";
      if (below && ok(*below) && ok(r)) speedup = format_number("%.2fx", below->stats.median_ms / r.stats.median_ms);
      row(library + " (" + r.spec.layer->name + " layer)", r, speedup);
    }
  if (reference > 0) text += "%" + reference_name + ": of " + reference_note + "\n";
  if (copy_column) text += format_number("%%copy: of the device-to-device copy bandwidth, %.1f GB/s\n", copy);
  text += "speed-up: the rung's median time against the rung below it\n";
  return text;
}

}  // namespace lb
