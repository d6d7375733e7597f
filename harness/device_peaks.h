// The device's theoretical peaks, from its attributes, and the plausibility check built on them: the
// highest rate a correct case can show on this device. A rate above it is impossible, so the kernel
// skipped work (a verified result notwithstanding: a kernel can be right and still not do what the
// workload's byte or flop count says every correct run does). docs/methodology.md, "Plausibility".
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "workloads/workload.h"

namespace lb {

// What the device says about itself (cudaDeviceGetAttribute), and the two peaks derived from it.
struct DevicePeaks {
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  int fp32_lanes_per_sm = 0;       // by architecture; 0 when the table does not know it
  double sm_clock_mhz = 0;         // cudaDevAttrClockRate: the peak (boost) SM clock
  double memory_clock_mhz = 0;     // cudaDevAttrMemoryClockRate: the peak memory clock
  int memory_bus_width_bits = 0;   // cudaDevAttrGlobalMemoryBusWidth
  double l2_bytes = 0;             // cudaDevAttrL2CacheSize
  bool integrated = false;         // cudaDevAttrIntegrated: the GPU shares the host's memory
  // 2 transfers per memory clock (double data rate) × bus width / 8, decimal GB/s; 0 when the
  // device reports no memory clock or bus width.
  double dram_gbps = 0;
  // SMs × fp32 lanes per SM × 2 (an FMA is 2 flops) × SM clock, GFLOP/s; 0 for an unknown
  // architecture.
  double fp32_gflops = 0;
};

// fp32 lanes (CUDA cores) per SM for compute capability major.minor: 64 on 7.x and 8.0, 128 on
// 8.6, 8.7, 8.9, 9.x, 10.x and 12.x; 0 for any other.
int fp32_lanes_per_sm(int major, int minor);

// The peaks from the attributes as the CUDA runtime reports them (clocks in kHz). Pure: the
// arithmetic of query_device_peaks(), for tests and for any device description.
DevicePeaks peaks_from_attributes(int cc_major, int cc_minor, int sm_count, int sm_clock_khz, int memory_clock_khz,
                                  int bus_width_bits, double l2_bytes, bool integrated);

// The current device's peaks. Needs a usable GPU (gpu_unavailable_reason() empty).
DevicePeaks query_device_peaks();

// The peaks with the fp32 rate at `sm_clock_mhz` when that is above the reported clock (GPU Boost
// can run a consumer GPU above the clock cudaDevAttrClockRate reports): the limit never sits
// below what the clock the samples ran at allows. A clock at or below the reported one (or 0,
// not read) changes nothing.
DevicePeaks at_sm_clock(const DevicePeaks& peaks, double sm_clock_mhz);

// The peaks as the results' context.peaks and the lab child's environment line carry them, and
// back (nullopt when `j` is not such an object). docs/json-schema.md lists the fields.
nlohmann::json peaks_json(const DevicePeaks& peaks);
std::optional<DevicePeaks> peaks_from_json(const nlohmann::json& j);

// The highest rate a correct case can show, in the unit of its workload's figure, or why there is
// none here.
struct RateLimit {
  Figure figure = Figure::kBandwidth;
  double limit = 0;         // in `unit`; 0 when not checked
  std::string bound;        // what the limit is: "the DRAM peak for a 805306368-byte working set"
  std::string derivation;   // its arithmetic: "3352.3 GB/s x W / (W - S), S = min(L2, written) = ... = 3585.8 GB/s"
  std::string not_checked;  // why there is no limit (working set within the L2, unknown architecture, ...)

  bool checked() const { return limit > 0; }
  const char* unit() const { return to_string(figure); }  // "gbps", "gflops": the JSON field it bounds
  const char* unit_text() const;                          // "GB/s", "GFLOP/s"
  double rate(double gbps, double gflops) const { return figure == Figure::kCompute ? gflops : gbps; }
  static RateLimit unchecked(Figure figure, std::string why);
};

// The limit for `workload` at `shape` on a device with `peaks`, measured with the L2 flushed
// before each sample (`l2_flushed`, cold) or not (hot). Pure (no GPU). The caller decides which
// layers are checked: the device's peaks do not bound a CPU layer.
//
// Bandwidth workloads. Every correct run reads at least R = bytes_read(shape) bytes and writes at
// least Wr = bytes_written(shape), W = R + Wr = bytes_moved(shape), the count its GB/s divides. Each
// byte read reaches the SMs from the L2, which fetched it from DRAM unless the line was already
// there when the run began; each byte written goes back to DRAM unless its line is still in the
// L2, dirty, when the run ends. The L2 holds at most C = l2_bytes, so at most S bytes are spared
// DRAM, and the rest crosses it at no more than dram_gbps:
//   cold (the flush reads 2 x C of other data after everything the harness writes before the
//         sample and before its start event, and nothing of the case's is in the L2 when the
//         timed region starts): reads are all from DRAM, and only the end spares bytes, those
//         written and left dirty: S = min(C, Wr). A read-only workload (reduce) is held to the
//         DRAM peak itself.
//   hot   (nothing in between samples): lines the previous run left can serve reads, and lines
//         this run leaves dirty need not be written back: S = min(C, R) + min(C, Wr) (saxpy's y,
//         read and written in place, can spare both on the same line).
//   time >= (W - S) / dram_gbps, so  rate = W / time <= dram_gbps x W / (W - S).
// When W <= S the working set can live in the L2 and DRAM bounds nothing: not checked (the L2's
// own bandwidth is not a figure the device reports). The L1 is not counted: it is not coherent,
// so it holds no global data from one kernel to the next, and within a run it serves no byte the
// L2 did not fetch once.
// What the cold bound rests on, and why it refuses no honest kernel:
//   - The flush. It streams 2 x C of clean lines through the L2 after the case's last write
//     (inputs and output reset in SampleHooks::before_sample, then the flush, then the start
//     event, all on one stream). Under LRU or any policy that ages lines not touched, none of the
//     case's lines survives 2 x C of misses; even random replacement would keep about e^-2 of
//     them (13% of at most C). No layer sets aside L2 for persisting accesses
//     (cudaLimitPersistingL2CacheSize is 0 unless host code raises it, and a lab's student writes
//     no host code but lab 8's, which has its own bound), so no line is protected from the flush.
//     A kernel's own eviction hints (PTX .L2::evict_last, cuda::annotated_ptr) might keep lines
//     past it; only matmul's kernels use hints here, and matmul is held to the fp32 peak.
//   - Capacity. C is what cudaDevAttrL2CacheSize reports. The H100's L2 is two partitions, and a
//     line may be held in both: that lowers the capacity a run can use, never raises it. Sectors
//     (32 bytes of a 128-byte line) only let a line be partly held. Compression could hold more,
//     but only in memory allocated compressible (cuMemCreate with a compression flag), which no
//     layer allocates; cudaMalloc's memory is not, and DRAM moves its bytes one for one.
//   - Margin. The best committed cold figures stay below 94% of the DRAM peak itself (CUB's
//     reduce at 2^28 on the H200; tests/test_plausibility.cpp checks every committed result),
//     and at small sizes launch latency keeps a run far slower: a flush that left 13% of an L2's
//     worth of the case's lines behind would still refuse no kernel that has ever run here. What
//     the bound still cannot catch is a cheat that stays under the DRAM peak itself: P18's, reduce
//     at 2^26 cold on the H100 at 1.17 of ours, is 0.99 of it (refused from 1.18).
//
// Compute workloads (matmul): flops(shape) fp32 FMAs' worth of arithmetic on the CUDA cores can
// go no faster than fp32_gflops (verification's fp32 tolerance rejects TF32 tensor cores, which
// would). Not checked for an unknown architecture.
//
// Launch-overhead workloads: a time per launch, no rate: not checked. An integrated GPU: not
// checked for bandwidth (its memory is the host's, whose clock and width the attributes do not
// describe).
RateLimit rate_limit(const Workload& workload, const Shape& shape, const DevicePeaks& peaks, bool l2_flushed);

// Empty when `rate` (in the limit's unit) is within the limit or nothing was checked; else the
// figures: "4970.0 GB/s > 3585.8 GB/s, the DRAM peak for a 805306368-byte working set".
std::string rate_excess(const RateLimit& limit, double rate);

// The words of a refusal: a case (`run`) fails with skipped_work_message(excess), "faster than the
// hardware allows (EXCESS): the kernel skipped work"; a grade says kSkippedWork and the figures.
inline constexpr const char* kSkippedWork = "faster than the hardware allows: the kernel skipped work";
std::string skipped_work_message(const std::string& excess);

}  // namespace lb
