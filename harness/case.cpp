#include "harness/case.h"

#include <algorithm>
#include <cmath>

#include "common/median.h"

namespace lb {

std::string Case::layer_label() const {
  if (!rung) return layer->name;
  const std::string id = rung->id();  // "matmul/03_smem_tiling"
  return layer->name + ":" + id.substr(id.find('/') + 1);
}

std::string Case::name() const { return workload->name() + "/" + layer_label() + "/" + workload->size_label(shape); }

const char* to_string(CaseStatus status) {
  switch (status) {
    case CaseStatus::kNotRun: return "not run";
    case CaseStatus::kOk: return "ok";
    case CaseStatus::kFailed: return "failed";
    case CaseStatus::kSkipped: return "skipped";
    case CaseStatus::kInterrupted: return "interrupted";
  }
  return "?";
}

void record_samples(CaseResult& r, const SampleSeries& series) {
  r.stats = summarize(series);
  r.samples_ms = kept_samples_for_results(series.samples());
  const double seconds = r.stats.median_ms * 1e-3;
  r.gbps = r.spec.workload->bytes_moved(r.spec.shape) / seconds / 1e9;
  r.gflops = r.spec.workload->flops(r.spec.shape) / seconds / 1e9;
}

double round_significant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return std::round(v * scale) / scale;
}

std::vector<double> kept_samples_for_results(const std::vector<double>& samples) {
  const std::size_t count = samples.size(), kept = std::min(count, kKeptSamples);
  std::vector<double> out;
  out.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i) out.push_back(round_significant(samples[i * count / kept], 4));
  return out;
}

SampleStats summarize(const SampleSeries& series) {
  SampleStats s;
  s.count = series.count();
  if (s.count == 0) return s;
  const auto [min, max] = std::minmax_element(series.samples().begin(), series.samples().end());
  s.median_ms = median(series.samples());
  s.min_ms = *min;
  s.max_ms = *max;
  s.mean_ms = series.mean_ms();
  s.rel_stddev = series.rel_stddev();
  return s;
}

}  // namespace lb
