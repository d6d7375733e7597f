// The plausibility check (harness/device_peaks.h): the highest rate a correct case can show on a
// device, for each figure, on synthetic H100-like peaks (CPU); every GPU case in the committed
// results within it (CPU: legitimate figures never fail); a lab grade refusing a rate above it, in
// its JSON, CSV and markdown (CPU, with a stand-in child); and a real `run` of legitimate cases not
// refused, its JSON carrying the peaks (GPU; skipped, with the reason, without one).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "common/gpu.h"
#include "harness/device_peaks.h"
#include "lab/grading.h"
#include "lab/lab_spec.h"
#include "lab_test_support.h"
#include "workloads/workload.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;

// An H100 SXM as the CUDA runtime describes it: 132 SMs at 1980 MHz, HBM3 at 2619 MHz on a
// 5120-bit bus, 50 MiB of L2.
DevicePeaks h100() { return peaks_from_attributes(9, 0, 132, 1980000, 2619000, 5120, 52428800, false); }

const Workload& workload(const char* name) {
  const Workload* w = find_workload(name);
  if (!w) throw std::runtime_error(std::string("no workload ") + name);
  return *w;
}

Shape n(std::int64_t count) { return {1, count, 1}; }
Shape cube(std::int64_t side) { return {side, side, side}; }

TEST(DevicePeaks, FromTheAttributes) {
  const DevicePeaks p = h100();
  EXPECT_NEAR(p.dram_gbps, 3352.32, 1e-9);  // 2 × 2619 MHz × 640 bytes
  EXPECT_NEAR(p.fp32_gflops, 66908.16, 1e-9);  // 132 × 128 × 2 × 1.98 GHz
  EXPECT_EQ(p.l2_bytes, 52428800);
  EXPECT_EQ(p.compute_capability, "9.0");
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(7, 5), 64);
  EXPECT_EQ(fp32_lanes_per_sm(8, 9), 128);
  EXPECT_EQ(fp32_lanes_per_sm(12, 0), 128);
  EXPECT_EQ(fp32_lanes_per_sm(6, 1), 0);
  EXPECT_EQ(peaks_from_attributes(6, 1, 28, 1582000, 5505000, 352, 3 << 20, false).fp32_gflops, 0);
}

TEST(DevicePeaks, JsonRoundTrip) {
  const DevicePeaks p = h100();
  const nlohmann::json j = peaks_json(p);
  EXPECT_NEAR(j.at("dram_gbps").get<double>(), 3352.32, 1e-9);
  EXPECT_NEAR(j.at("fp32_gflops").get<double>(), 66908.16, 1e-9);
  EXPECT_EQ(j.at("l2_bytes").get<double>(), 52428800);
  const std::optional<DevicePeaks> back = peaks_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->dram_gbps, p.dram_gbps);
  EXPECT_EQ(back->fp32_gflops, p.fp32_gflops);
  EXPECT_EQ(back->l2_bytes, p.l2_bytes);
  EXPECT_EQ(back->sm_count, 132);
  EXPECT_FALSE(back->integrated);
  EXPECT_FALSE(peaks_from_json(nullptr));
  EXPECT_FALSE(peaks_from_json(nlohmann::json::object()));
  EXPECT_FALSE(peaks_from_json("fast"));
  // An unknown architecture: the fp32 peak is null, the DRAM peak still there.
  const nlohmann::json unknown = peaks_json(peaks_from_attributes(6, 1, 28, 1582000, 5505000, 352, 3 << 20, false));
  EXPECT_TRUE(unknown.at("fp32_gflops").is_null());
  ASSERT_TRUE(peaks_from_json(unknown));
  EXPECT_EQ(peaks_from_json(unknown)->fp32_gflops, 0);
}

TEST(RateLimit, BandwidthAboveTheL2IsTheDramPeakScaledByTheWorkingSet) {
  const Workload& w = workload("vector_add");
  const double bytes = 12.0 * (1 << 26);  // 805306368
  const RateLimit cold = rate_limit(w, n(1 << 26), h100(), true);
  ASSERT_TRUE(cold.checked()) << cold.not_checked;
  EXPECT_STREQ(cold.unit(), "gbps");
  EXPECT_NEAR(cold.limit, 3352.32 * bytes / (bytes - 52428800), 1e-9);  // 3585.8
  EXPECT_EQ(cold.bound, "the DRAM peak for a 805306368-byte working set");
  EXPECT_NE(cold.derivation.find("3352.3 GB/s x W / (W - L2)"), std::string::npos) << cold.derivation;
  // The issue's kernel that skipped work, and legitimate figures.
  EXPECT_EQ(rate_excess(cold, 4970), "4970.0 GB/s > 3585.8 GB/s, the DRAM peak for a 805306368-byte working set");
  EXPECT_EQ(skipped_work_message(rate_excess(cold, 4970)),
            "faster than the hardware allows (4970.0 GB/s > 3585.8 GB/s, the DRAM peak for a 805306368-byte working "
            "set): the kernel skipped work");
  EXPECT_EQ(rate_excess(cold, 3000), "");
  EXPECT_EQ(rate_excess(cold, 3352.32), "") << "the DRAM peak itself is always allowed";
  EXPECT_EQ(rate_excess(cold, std::nan("")), "");
  // Hot: the previous run's lines and this run's dirty ones, twice the L2, may skip DRAM.
  const RateLimit hot = rate_limit(w, n(1 << 26), h100(), false);
  ASSERT_TRUE(hot.checked());
  EXPECT_NEAR(hot.limit, 3352.32 * bytes / (bytes - 2 * 52428800.0), 1e-9);
  EXPECT_GT(hot.limit, cold.limit);
  // At 2^28 (3 GiB) the limit is within 2% of the DRAM peak; the best committed figure is 3097.
  const RateLimit big = rate_limit(w, n(1 << 28), h100(), true);
  EXPECT_LT(big.limit, 3352.32 * 1.02);
  EXPECT_EQ(rate_excess(big, 3097), "");
}

TEST(RateLimit, AWorkingSetTheL2CanHoldIsNotChecked) {
  const Workload& w = workload("vector_add");
  const RateLimit small = rate_limit(w, n(1 << 20), h100(), true);
  EXPECT_FALSE(small.checked());
  EXPECT_EQ(small.not_checked, "working set 12582912 bytes fits in the 52428800-byte L2: DRAM's peak bounds nothing");
  EXPECT_EQ(rate_excess(small, 1e9), "") << "nothing checked, nothing refused";
  // 96 MiB: above the L2 cold, within twice it hot.
  EXPECT_TRUE(rate_limit(w, n(1 << 23), h100(), true).checked());
  const RateLimit hot = rate_limit(w, n(1 << 23), h100(), false);
  EXPECT_FALSE(hot.checked());
  EXPECT_NE(hot.not_checked.find("within twice the 52428800-byte L2"), std::string::npos) << hot.not_checked;
  // reduce reads 4 bytes an element: 2^23 elements (32 MiB) fit.
  EXPECT_FALSE(rate_limit(workload("reduce"), n(1 << 23), h100(), true).checked());
  EXPECT_TRUE(rate_limit(workload("reduce"), n(1 << 26), h100(), true).checked());
}

TEST(RateLimit, ComputeIsTheFp32Peak) {
  const Workload& w = workload("matmul");
  const RateLimit limit = rate_limit(w, cube(4096), h100(), true);
  ASSERT_TRUE(limit.checked());
  EXPECT_STREQ(limit.unit(), "gflops");
  EXPECT_NEAR(limit.limit, 66908.16, 1e-9);
  EXPECT_EQ(limit.derivation, "132 SMs x 128 fp32 lanes x 2 flops x 1980 MHz = 66908.2 GFLOP/s");
  EXPECT_EQ(rate_excess(limit, 51283), "") << "cuBLAS SGEMM on an H100";
  EXPECT_EQ(rate_excess(limit, 70000), "70000.0 GFLOP/s > 66908.2 GFLOP/s, the fp32 peak");
  EXPECT_EQ(limit.rate(1.0, 2.0), 2.0);
  // The same at a small size, in the L2 or not, hot or cold: the flops are the flops.
  EXPECT_EQ(rate_limit(w, cube(512), h100(), false).limit, limit.limit);
  // GPU Boost above the reported clock raises the limit with it; a lower clock never lowers it.
  EXPECT_NEAR(rate_limit(w, cube(4096), at_sm_clock(h100(), 2178), true).limit, 66908.16 * 1.1, 1e-6);
  EXPECT_EQ(rate_limit(w, cube(4096), at_sm_clock(h100(), 1500), true).limit, limit.limit);
  EXPECT_EQ(rate_limit(w, cube(4096), at_sm_clock(h100(), 0), true).limit, limit.limit);
}

TEST(RateLimit, UnknownArchitectureLaunchAndIntegratedAreNotChecked) {
  const DevicePeaks unknown = peaks_from_attributes(6, 1, 28, 1582000, 5505000, 352, 3 << 20, false);
  const RateLimit matmul = rate_limit(workload("matmul"), cube(4096), unknown, true);
  EXPECT_FALSE(matmul.checked());
  EXPECT_NE(matmul.not_checked.find("compute capability 6.1"), std::string::npos) << matmul.not_checked;
  EXPECT_TRUE(rate_limit(workload("vector_add"), n(1 << 26), unknown, true).checked()) << "its DRAM peak is known";
  for (const char* launch : {"launch_async", "launch_sync"}) {
    const RateLimit l = rate_limit(workload(launch), n(1000), h100(), true);
    EXPECT_FALSE(l.checked()) << launch;
    EXPECT_NE(l.not_checked.find("launch-overhead"), std::string::npos) << l.not_checked;
  }
  DevicePeaks integrated = h100();
  integrated.integrated = true;
  EXPECT_FALSE(rate_limit(workload("vector_add"), n(1 << 28), integrated, true).checked());
  EXPECT_TRUE(rate_limit(workload("matmul"), cube(4096), integrated, true).checked());
  DevicePeaks no_memory_clock = h100();
  no_memory_clock.dram_gbps = 0;
  EXPECT_FALSE(rate_limit(workload("vector_add"), n(1 << 28), no_memory_clock, true).checked());
}

// Every GPU case in the committed results (docs/results/*/results.json, H100 and H200 runs) is
// within the limit of its device: a legitimate figure never fails the check.
TEST(RateLimit, EveryCommittedResultIsWithinItsLimit) {
  double worst = 0;
  std::string worst_case;
  int checked = 0;
  for (const char* gpu : {"h100", "h200"}) {
    const fs::path file = kRoot / "docs" / "results" / gpu / "results.json";
    if (!fs::exists(file)) continue;
    const nlohmann::json j = nlohmann::json::parse(slurp(file));
    const nlohmann::json& d = j.at("context").at("device");
    const std::string cc = d.at("compute_capability");
    const DevicePeaks peaks = peaks_from_attributes(
        std::stoi(cc), std::stoi(cc.substr(cc.find('.') + 1)), d.at("sm_count").get<int>(),
        static_cast<int>(std::lround(d.at("sm_clock_mhz").get<double>() * 1e3)),
        static_cast<int>(std::lround(d.at("memory_clock_mhz").get<double>() * 1e3)),
        d.at("memory_bus_width_bits").get<int>(),
        d.at("l2_cache_bytes").get<double>(), false);
    EXPECT_NEAR(peaks.dram_gbps, d.at("theoretical_bandwidth_gbps").get<double>(), 1e-6) << gpu;
    EXPECT_NEAR(peaks.fp32_gflops, d.at("theoretical_fp32_gflops").get<double>(), 1e-6) << gpu;
    const nlohmann::json& layers = j.at("context").at("layers");
    for (const nlohmann::json& b : j.at("benchmarks")) {
      if (b.value("status", "") != "ok" || !b.contains("gbps")) continue;
      const std::string layer = b.at("layer");
      // Schema 1 has no layers.<name>.on_gpu: GPU cases are the ones with a fraction of the device's peak.
      const bool on_gpu = layers.contains(layer) && layers[layer].contains("on_gpu")
                              ? layers[layer]["on_gpu"].get<bool>()
                              : b.value("fraction_of_theoretical_bandwidth", nlohmann::json()).is_number();
      if (!on_gpu) continue;
      const Workload& w = workload(b.at("workload").get<std::string>().c_str());
      const auto size = [&b](const char* key) { return b.at(key).get<std::int64_t>(); };
      const Shape shape = w.size_form() != SizeForm::kCount ? Shape{size("m"), size("n"), b.value("k", std::int64_t{1})} : n(size("n"));
      const double clock = b.value("mean_sm_clock_mhz", nlohmann::json()).is_number() ? b["mean_sm_clock_mhz"].get<double>() : 0;
      const RateLimit limit = rate_limit(w, shape, at_sm_clock(peaks, clock), b.value("cache_mode", "hot") == "cold");
      if (!limit.checked()) continue;
      ++checked;
      const double ratio = limit.rate(b.at("gbps"), b.at("gflops")) / limit.limit;
      EXPECT_LE(ratio, 1.0) << gpu << " " << b.at("name");
      if (ratio > worst) worst = ratio, worst_case = std::string(gpu) + " " + b.at("name").get<std::string>();
    }
  }
  if (checked == 0) GTEST_SKIP() << "no committed results in this tree";
  std::printf("%d committed GPU cases checked; the closest to its limit: %s at %.3f of it\n", checked,
              worst_case.c_str(), worst);
}

// --- grading: a rate above the limit refuses the performance part -----------------------------

Timing timed(double ms, double gbps) { return Timing{ms, 0.002, gbps, 0, 40}; }

// Lab 1 (vector add, 2^26) on the H100: ours at 3000 GB/s, the student's at `student_gbps`.
Grade grade_at(const LabSpec& spec, double student_gbps) {
  const Shape size = spec.benchmark_sizes.front();
  const double bytes = spec.workload->bytes_moved(size);
  BenchmarkResult b{spec.workload->size_label(size), timed(bytes / student_gbps / 1e6, student_gbps),
                    timed(bytes / 3000.0 / 1e6, 3000), ""};
  b.limit = rate_limit(*spec.workload, size, h100(), true);
  return grade_submission(spec, "fast.cu", 7, 7, {b}, {"copy bandwidth", "GB/s", 2991.5});
}

TEST(LabPlausibility, ARateAboveThePeakIsRefusedInJsonCsvAndMarkdown) {
  const LabSpec spec = find_lab(kLabs, "1");
  ASSERT_EQ(spec.workload->size_label(spec.benchmark_sizes.front()), "67108864");
  const Grade g = grade_at(spec, 4970);
  EXPECT_EQ(g.outcome, GradeOutcome::kRefused);
  EXPECT_STREQ(to_string(g.outcome), "refused");
  EXPECT_EQ(g.performance_points, 0);
  EXPECT_EQ(g.tier, nullptr);
  EXPECT_EQ(g.check_points, 60);
  EXPECT_EQ(g.points(), 60) << "the check's points are kept";
  const std::string figures = "at 67108864: 4970.0 GB/s > 3585.8 GB/s, the DRAM peak for a 805306368-byte working set";
  EXPECT_EQ(g.refusal, std::string(kSkippedWork) + " (" + figures + ")");
  ASSERT_FALSE(g.feedback.empty());
  EXPECT_TRUE(has(g.feedback.front(), "refused, 0 of 40 performance points: faster than the hardware allows: the "
                                      "kernel skipped work (" + figures + ")"))
      << g.feedback.front();
  ASSERT_TRUE(g.speed);
  EXPECT_NEAR(*g.speed, 4970.0 / 3000.0, 1e-9) << "the figures are kept";

  const nlohmann::json j = grade_json(spec, g);
  EXPECT_EQ(j["outcome"], "refused");
  EXPECT_EQ(j["points"], 60);
  EXPECT_EQ(j["performance"]["points"], 0);
  EXPECT_EQ(j["performance"]["refused"], g.refusal);
  EXPECT_NEAR(j["performance"]["benchmarks"][0]["limit"]["limit"].get<double>(), 3585.8, 0.05);
  EXPECT_EQ(j["performance"]["benchmarks"][0]["limit"]["unit"], "gbps");
  EXPECT_NEAR(j["performance"]["benchmarks"][0]["student"]["gbps"].get<double>(), 4970, 1e-9);
  const std::string row = csv_row(spec, g);
  EXPECT_TRUE(row.starts_with("fast.cu,01-vector-add,refused,60,100,7,7,60,1.6567,")) << row;
  EXPECT_TRUE(has(row, kSkippedWork) && has(row, figures)) << row;
  const std::string md = grade_markdown(spec, g, {"copy bandwidth", "GB/s", 2991.5});
  EXPECT_TRUE(has(md, "(refused)")) << md;
  EXPECT_TRUE(has(md, "| performance | **refused**: " + g.refusal + " | 0 / 40 |")) << md;
  EXPECT_TRUE(has(md, "| most the GPU allows GB/s |")) << md;
  EXPECT_TRUE(has(md, "| 166% | 3586 |")) << md;
}

TEST(LabPlausibility, ALegitimateRateIsGraded) {
  const LabSpec spec = find_lab(kLabs, "1");
  const Grade g = grade_at(spec, 3000);
  EXPECT_EQ(g.outcome, GradeOutcome::kGraded);
  EXPECT_TRUE(g.refusal.empty());
  EXPECT_EQ(g.performance_points, 40);  // as fast as ours
  EXPECT_EQ(g.points(), 100);
  EXPECT_TRUE(grade_json(spec, g)["performance"]["refused"].is_null());
  // Not checked (no peaks): graded as before, whatever the rate.
  BenchmarkResult unchecked{"67108864", timed(0.16, 4970), timed(0.27, 3000), ""};
  EXPECT_EQ(grade_submission(spec, "a.cu", 7, 7, {unchecked}, {}).outcome, GradeOutcome::kGraded);
}

// `lab grade` end to end with a stand-in child that reports the H100's peaks and a rate above
// them: lab_grade.cpp reads the peaks, and every output names the refusal.
class LabGradeCli : public LabCliTest {};

TEST_F(LabGradeCli, RefusalThroughTheChildProtocol) {
  std::string script = "#!/bin/sh\n";
  for (const char* size : {"1", "127", "255", "256", "257", "1000003", "2^24"})
    script += std::string("echo '{\"size\": \"") + size + "\", \"passed\": true}'\n";
  script += "echo '{\"event\": \"environment\", \"gpu\": \"Test H100\", \"ceilings\": {\"copy_gbps\": 2991.5}, "
            "\"peaks\": " + peaks_json(h100()).dump() + ", \"cache_mode\": \"cold\"}'\n"
            "echo '{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.162, \"gbps\": 4970.0, \"samples\": 40}, "
            "\"runtime\": {\"median_ms\": 0.26, \"gbps\": 3097.3, \"samples\": 40}}'\n";
  write(dir_ / "child.sh", script);
  fs::permissions(dir_ / "child.sh", fs::perms::owner_all);
  const std::string solution = (kLabs / "solutions" / "01-vector-add" / "vector_add.cu").string();
  const Outcome o = run("lab --labs " + kLabs.string() + " grade 1 " + solution + " --json g.json --csv g.csv --markdown g.md",
                        "LAYERBENCH_LAB_RUNNER=" + (dir_ / "child.sh").string());
  EXPECT_EQ(o.code, 0) << "the check passed\n" << o.out << o.err;
  EXPECT_TRUE(has(o.out, "60 / 100  (check 60 / 60, performance 0 / 40: refused)")) << o.out;
  EXPECT_TRUE(has(o.out, kSkippedWork)) << o.out;
  const std::string figures = "at 67108864: 4970.0 GB/s > 3585.8 GB/s, the DRAM peak for a 805306368-byte working set";
  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "g.json"));
  EXPECT_NEAR(j["peaks"]["dram_gbps"].get<double>(), 3352.32, 1e-9);
  ASSERT_EQ(j["submissions"].size(), 1u);
  EXPECT_EQ(j["submissions"][0]["outcome"], "refused");
  EXPECT_EQ(j["submissions"][0]["points"], 60);
  EXPECT_EQ(j["submissions"][0]["performance"]["refused"], std::string(kSkippedWork) + " (" + figures + ")");
  const std::string csv = slurp(dir_ / "g.csv");
  EXPECT_TRUE(has(csv, solution + ",01-vector-add,refused,60,100,")) << csv;
  EXPECT_TRUE(has(csv, kSkippedWork) && has(csv, figures)) << csv;
  const std::string md = slurp(dir_ / "g.md");
  EXPECT_TRUE(has(md, "**refused**: " + std::string(kSkippedWork) + " (" + figures + ")")) << md;
  EXPECT_TRUE(has(md, "a kernel faster than the GPU's theoretical peak (DRAM 3352 GB/s")) << md;
}

// --- `run`: the record of the check ----------------------------------------------------------------

class PlausibilityRun : public LabCliTest {};

// A CPU layer's case is not checked, and says why (no GPU needed).
TEST_F(PlausibilityRun, CpuCasesSayWhyTheyAreNotChecked) {
  const Outcome o = run("run --layer cpu --workload vector_add --size 2^20 --min-time 0.01 --max-time 0.05 --out r.json");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "r.json"));
  ASSERT_EQ(j.at("benchmarks").size(), 1u);
  EXPECT_EQ(j.at("benchmarks")[0].at("plausibility"),
            nlohmann::json({{"not_checked", "a CPU layer: the device's peaks do not bound the host"}}));
  if (!gpu_unavailable_reason().empty()) EXPECT_TRUE(j.at("context").at("peaks").is_null());
}

// On a GPU: legitimate cases are never refused.

TEST_F(PlausibilityRun, LegitimateCasesPassAndTheJsonCarriesThePeaks) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  // The layers closest to the peaks (CUB's transform and cuBLAS SGEMM beside ours), cold and hot.
  for (const char* mode : {"cold", "hot"}) {
    SCOPED_TRACE(mode);
    const Outcome o = run(std::string("run --layer runtime,vendor,graph --workload vector_add,saxpy,matmul,launch_async "
                                      "--min-time 0.01 --max-time 0.3 --mode ") + mode + " --out r.json");
    EXPECT_EQ(o.code, 0) << o.out << o.err;
    const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "r.json"));
    const nlohmann::json& peaks = j.at("context").at("peaks");
    ASSERT_TRUE(peaks.is_object()) << j.at("context").dump();
    EXPECT_GT(peaks.at("dram_gbps").get<double>(), 0);
    EXPECT_GT(peaks.at("l2_bytes").get<double>(), 0);
    EXPECT_EQ(peaks.at("dram_gbps"), j.at("context").at("device").at("theoretical_bandwidth_gbps"));
    int checked = 0;
    for (const nlohmann::json& b : j.at("benchmarks")) {
      SCOPED_TRACE(b.dump());
      EXPECT_EQ(b.at("status"), "ok");
      ASSERT_TRUE(b.contains("plausibility"));
      const nlohmann::json& p = b.at("plausibility");
      if (b.at("workload") == "launch_async") EXPECT_TRUE(p.contains("not_checked"));
      if (!p.contains("limit")) continue;
      ++checked;
      EXPECT_LE(p.at("fraction_of_limit").get<double>(), 1.0);
      EXPECT_EQ(p.at("unit"), b.at("workload") == "matmul" ? "gflops" : "gbps");
    }
    EXPECT_GT(checked, 0);
  }
}

// On a GPU: a kernel that skips work fails its case. This vector add takes an output element that
// already holds a number as done: the verified run starts from NaN poison and computes everything,
// so it passes; the timed samples after it find the result in place and only read c, 4 bytes an
// element of the 12 the workload moves, about three times the DRAM peak.
TEST_F(PlausibilityRun, AKernelThatSkipsWorkFailsItsCase) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  write(dir_ / "skipping.cu", R"(
extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, long long n) {
  const long long quads = n / 4;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < quads) {
    const float4 old = reinterpret_cast<const float4*>(c)[i];
    if (old.x == old.x && old.y == old.y && old.z == old.z && old.w == old.w) return;  // "done"
    const float4 x = reinterpret_cast<const float4*>(a)[i];
    const float4 y = reinterpret_cast<const float4*>(b)[i];
    reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  } else {
    const long long tail = quads * 4 + (i - quads);
    if (tail < n && c[tail] != c[tail]) c[tail] = a[tail] + b[tail];
  }
}
)");
  const Outcome o = run("run --layer driver --workload vector_add --size 2^20,2^26 --min-time 0.01 --max-time 0.3 "
                        "--no-kernel-cache --kernel-text vector_add=skipping.cu --out r.json");
  EXPECT_EQ(o.code, 1) << "a failed case\n" << o.out << o.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "r.json"));
  ASSERT_EQ(j.at("benchmarks").size(), 2u) << j.dump();
  const nlohmann::json& small = j.at("benchmarks")[0];  // 12 MiB: the L2 holds it, nothing to check against
  EXPECT_EQ(small.at("status"), "ok") << small.dump();
  EXPECT_TRUE(small.at("plausibility").contains("not_checked")) << small.dump();
  const nlohmann::json& big = j.at("benchmarks")[1];
  SCOPED_TRACE(big.dump());
  EXPECT_EQ(big.at("status"), "failed");
  EXPECT_EQ(big.at("verified"), true) << "right, and still refused";
  const std::string message = big.at("message");
  EXPECT_TRUE(message.starts_with("faster than the hardware allows (")) << message;
  EXPECT_TRUE(message.ends_with(" GB/s, the DRAM peak for a 805306368-byte working set): the kernel skipped work"))
      << message;
  EXPECT_EQ(big.at("error_occurred"), true);
  EXPECT_GT(big.at("gbps").get<double>(), big.at("plausibility").at("limit").get<double>()) << "its figures kept";
  EXPECT_GT(big.at("plausibility").at("fraction_of_limit").get<double>(), 1.0);
  EXPECT_TRUE(has(o.out, "failed: faster than the hardware allows (")) << o.out;
}

}  // namespace
