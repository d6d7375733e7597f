#include "harness/records.h"

namespace lb {

CaseFractions case_fractions(const CaseResult& r, const RunContext& context) {
  CaseFractions f;
  if (!r.spec.layer->on_gpu || r.stats.count == 0) return f;
  const auto over = [](double value, std::optional<double> of) -> std::optional<double> {
    if (!of || !(*of > 0)) return std::nullopt;
    return value / *of;
  };
  const Ceilings& ceilings = context.ceilings;
  const std::optional<DeviceInfo>& device = context.device;
  f.of_copy = over(r.gbps, ceilings.copy ? std::optional(ceilings.copy->gbps) : std::nullopt);
  f.of_cublas = over(r.gflops, ceilings.sgemm ? std::optional(ceilings.sgemm->gflops) : std::nullopt);
  f.of_theoretical_bandwidth = over(r.gbps, device ? std::optional(device->theoretical_bandwidth_gbps) : std::nullopt);
  f.of_theoretical_fp32 = over(r.gflops, device ? device->theoretical_fp32_gflops : std::nullopt);
  return f;
}

}  // namespace lb
