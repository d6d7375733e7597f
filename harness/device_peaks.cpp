#include "harness/device_peaks.h"

#include <nlohmann/json.hpp>

#include <cuda_runtime.h>

#include <algorithm>

#include "common/cuda_check.h"
#include "common/format_number.h"

namespace lb {
namespace {

int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
  return value;
}

std::string bytes_text(double bytes) { return format_number("%.0f", bytes); }

double fp32_gflops_at(const DevicePeaks& p, double sm_clock_mhz) {
  return static_cast<double>(p.sm_count) * p.fp32_lanes_per_sm * 2.0 * sm_clock_mhz / 1e3;
}

}  // namespace

int fp32_lanes_per_sm(int major, int minor) {
  if (major == 7 || (major == 8 && minor == 0)) return 64;
  if ((major == 8 && (minor == 6 || minor == 7 || minor == 9)) || major == 9 || major == 10 || major == 12) return 128;
  return 0;
}

DevicePeaks peaks_from_attributes(int cc_major, int cc_minor, int sm_count, int sm_clock_khz, int memory_clock_khz,
                                  int bus_width_bits, double l2_bytes, bool integrated) {
  DevicePeaks p;
  p.compute_capability = std::to_string(cc_major) + "." + std::to_string(cc_minor);
  p.sm_count = sm_count;
  p.fp32_lanes_per_sm = fp32_lanes_per_sm(cc_major, cc_minor);
  p.sm_clock_mhz = sm_clock_khz / 1e3;
  p.memory_clock_mhz = memory_clock_khz / 1e3;
  p.memory_bus_width_bits = bus_width_bits;
  p.l2_bytes = l2_bytes;
  p.integrated = integrated;
  // Double data rate: two transfers per memory clock across the whole bus.
  p.dram_gbps = 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
  p.fp32_gflops = fp32_gflops_at(p, p.sm_clock_mhz);
  return p;
}

DevicePeaks query_device_peaks() {
  int device = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  return peaks_from_attributes(attribute(cudaDevAttrComputeCapabilityMajor, device),
                               attribute(cudaDevAttrComputeCapabilityMinor, device),
                               attribute(cudaDevAttrMultiProcessorCount, device),
                               attribute(cudaDevAttrClockRate, device), attribute(cudaDevAttrMemoryClockRate, device),
                               attribute(cudaDevAttrGlobalMemoryBusWidth, device),
                               attribute(cudaDevAttrL2CacheSize, device),
                               attribute(cudaDevAttrIntegrated, device) != 0);
}

DevicePeaks at_sm_clock(const DevicePeaks& peaks, double sm_clock_mhz) {
  DevicePeaks p = peaks;
  if (sm_clock_mhz > p.sm_clock_mhz) {
    p.sm_clock_mhz = sm_clock_mhz;
    p.fp32_gflops = fp32_gflops_at(p, sm_clock_mhz);
  }
  return p;
}

nlohmann::json peaks_json(const DevicePeaks& p) {
  const auto positive = [](auto v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"dram_gbps", p.dram_gbps},
          {"fp32_gflops", positive(p.fp32_gflops)},
          {"l2_bytes", p.l2_bytes},
          {"compute_capability", p.compute_capability},
          {"sm_count", p.sm_count},
          {"fp32_lanes_per_sm", positive(p.fp32_lanes_per_sm)},
          {"sm_clock_mhz", p.sm_clock_mhz},
          {"memory_clock_mhz", p.memory_clock_mhz},
          {"memory_bus_width_bits", p.memory_bus_width_bits},
          {"integrated", p.integrated},
          {"dram_method",
           "2 x memory clock x bus width / 8 (cudaDevAttrMemoryClockRate, cudaDevAttrGlobalMemoryBusWidth)"},
          {"fp32_method", "SMs x fp32 lanes per SM x 2 (FMA) x SM clock (cudaDevAttrClockRate)"}};
}

std::optional<DevicePeaks> peaks_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto number = [&j](const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
  };
  DevicePeaks p;
  p.dram_gbps = number("dram_gbps");
  p.fp32_gflops = number("fp32_gflops");
  p.l2_bytes = number("l2_bytes");
  if (!(p.dram_gbps > 0) && !(p.fp32_gflops > 0)) return std::nullopt;  // no peak to check against
  if (j.contains("compute_capability") && j["compute_capability"].is_string())
    p.compute_capability = j["compute_capability"].get<std::string>();
  p.sm_count = static_cast<int>(number("sm_count"));
  p.fp32_lanes_per_sm = static_cast<int>(number("fp32_lanes_per_sm"));
  p.sm_clock_mhz = number("sm_clock_mhz");
  p.memory_clock_mhz = number("memory_clock_mhz");
  p.memory_bus_width_bits = static_cast<int>(number("memory_bus_width_bits"));
  p.integrated = j.value("integrated", false);
  return p;
}

const char* RateLimit::unit_text() const {
  switch (figure) {
    case Figure::kBandwidth: return "GB/s";
    case Figure::kCompute: return "GFLOP/s";
    case Figure::kLaunchTime: return "us";
  }
  return "";
}

RateLimit RateLimit::unchecked(Figure figure, std::string why) {
  RateLimit r;
  r.figure = figure;
  r.not_checked = std::move(why);
  return r;
}

RateLimit rate_limit(const Workload& workload, const Shape& shape, const DevicePeaks& peaks, bool l2_flushed) {
  const Figure figure = workload.figure();
  switch (figure) {
    case Figure::kLaunchTime:
      return RateLimit::unchecked(figure, "a launch-overhead workload: a time per launch, no rate to bound");
    case Figure::kCompute: {
      if (!(peaks.fp32_gflops > 0))
        return RateLimit::unchecked(figure, "no fp32 peak: the fp32 lanes per SM of compute capability " +
                                                (peaks.compute_capability.empty() ? std::string("?")
                                                                                  : peaks.compute_capability) +
                                                " are not known");
      RateLimit r;
      r.figure = figure;
      r.limit = peaks.fp32_gflops;
      r.bound = "the fp32 peak";
      r.derivation = std::to_string(peaks.sm_count) + " SMs x " + std::to_string(peaks.fp32_lanes_per_sm) +
                     " fp32 lanes x 2 flops x " + format_number("%.0f", peaks.sm_clock_mhz) +
                     " MHz = " + format_number("%.1f", peaks.fp32_gflops) + " GFLOP/s";
      return r;
    }
    case Figure::kBandwidth: break;
  }
  if (peaks.integrated)
    return RateLimit::unchecked(figure, "an integrated GPU: its memory is the host's, which the device's memory "
                                        "clock and bus width do not describe");
  if (!(peaks.dram_gbps > 0))
    return RateLimit::unchecked(figure, "no DRAM peak: the device reports no memory clock or bus width");
  // The bytes the L2 can spare DRAM (header): cold, those written and left dirty at the end; hot,
  // also those read from lines the previous run left.
  const double c = peaks.l2_bytes, read = workload.bytes_read(shape), written = workload.bytes_written(shape);
  const double w = read + written;  // bytes_moved(shape)
  const double spared_read = l2_flushed ? 0.0 : std::min(c, read), spared_written = std::min(c, written);
  const double spared = spared_read + spared_written;
  if (!(w > spared))
    return RateLimit::unchecked(
        figure, "working set " + bytes_text(w) + " bytes " +
                    (l2_flushed ? "is only written and fits in the " + bytes_text(c) + "-byte L2"
                                : "reads " + bytes_text(read) + " and writes " + bytes_text(written) +
                                      " bytes, each within the " + bytes_text(c) +
                                      "-byte L2 (hot: lines left by the previous run, lines left dirty by this one)") +
                    ": DRAM's peak bounds nothing");
  RateLimit r;
  r.figure = figure;
  r.limit = peaks.dram_gbps * w / (w - spared);
  r.bound = "the DRAM peak for a " + bytes_text(w) + "-byte working set";
  const std::string min_written = "min(" + bytes_text(c) + ", " + bytes_text(written) + ")";
  r.derivation = format_number("%.1f", peaks.dram_gbps) + " GB/s x W / (W - S), S = " +
                 (l2_flushed ? "min(L2, written) = " + min_written
                             : "min(L2, read) + min(L2, written) = min(" + bytes_text(c) + ", " + bytes_text(read) +
                                   ") + " + min_written) +
                 " = " + bytes_text(spared) + ": " + format_number("%.1f", peaks.dram_gbps) + " x " + bytes_text(w) +
                 " / " + bytes_text(w - spared) + " = " + format_number("%.1f", r.limit) + " GB/s";
  return r;
}

std::string rate_excess(const RateLimit& limit, double rate) {
  if (!limit.checked() || !(rate > limit.limit)) return {};
  return format_number("%.1f", rate) + " " + limit.unit_text() + " > " + format_number("%.1f", limit.limit) + " " +
         limit.unit_text() + ", " + limit.bound;
}

std::string skipped_work_message(const std::string& excess) {
  return "faster than the hardware allows (" + excess + "): the kernel skipped work";
}

}  // namespace lb
