// The record: the typed records of a run (harness/records.h) through the one serializer
// (harness/results_json.h) to the fields the reports and Google Benchmark's compare.py read
// (docs/json-schema.md), the benchmark runs the console table is fed (harness/benchmark_run.h),
// and the --benchmark_* flags that keep a meaning (harness/benchmark_flags.h). CPU only.
#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "common/usage_error.h"
#include "harness/benchmark_flags.h"
#include "harness/benchmark_run.h"
#include "harness/host_info.h"
#include "harness/machine_load.h"
#include "harness/record.h"
#include "harness/records.h"
#include "harness/results_json.h"
#include "variants/variant.h"
#include "workloads/workload.h"

namespace lb {
namespace {

using nlohmann::json;

// A context with every optional part present, as a timed GPU run (interrupted, from `ladder`) has it.
RunContext full_context() {
  RunContext c;
  c.date = "2026-01-02T03:04:05+0000";
  c.run_id = "0123456789abcdef0123456789abcdef";
  c.executable = "build/layerbench";
  c.command_line = "build/layerbench ladder matmul";
  c.seed = 18446744073709551615ull;
  c.suite_wall_s = 12.5;
  c.interrupted = InterruptInfo{"SIGINT", 9, 4};
  c.host = {.hostname = "gpu-1", .cpu_model = "Xeon", .logical_cpus = 16, .openmp_threads = 8,
            .memory_bytes = 1.5e11, .os = "Linux 6.8.0"};
  c.cpu = {.num_cpus = 16, .mhz_per_cpu = 2600, .scaling_enabled = true,
           .caches = {{"Data", 1, 49152, 2}, {"Unified", 3, 52428800, 16}}, .load_avg = {0.5, 0.25, 0.125}};
  c.task = {.pid = 4321, .environment = {{"slurm_job_id", "77"}, {"slurm_array_task_id", "3"}}};
  c.device = DeviceInfo{.index = 0, .name = "NVIDIA H100 80GB HBM3",
                        .uuid = "GPU-8b1c0b9e-0000-1111-2222-333344445555", .pci_bus_id = "00000000:1B:00.0",
                        .compute_capability = "9.0", .sm_count = 132, .sm_clock_mhz = 1980, .memory_clock_mhz = 2619,
                        .memory_bus_width_bits = 5120, .memory_bytes = 8.5e10, .l2_cache_bytes = 52428800,
                        .theoretical_bandwidth_gbps = 3352.3, .theoretical_fp32_gflops = 66908.2,
                        .driver_version = "13.0", .runtime_version = "13.0", .context_creation_ms = 120.5};
  c.peaks = peaks_from_attributes(9, 0, 132, 1980000, 2619000, 5120, 52428800, false);
  c.ceilings.copy = CopyCeiling{.gbps = 2900, .bytes = 1073741824, .median_ms = 0.74, .method = "copy"};
  c.ceilings.sgemm = SgemmCeiling{.gflops = 50000, .size = "4096x4096x4096", .median_ms = 2.7, .method = "sgemm"};
  c.context_probe = std::vector<ProbeReading>{{"start", 1.25}, {"end", 1.5}};
  c.measurement.gpu_cold = false;
  c.measurement.rule.target_rel_noise = 0.01;
  c.measurement.rule.min_samples = 7;
  c.measurement.l2_flush_bytes = 104857600;
  c.measurement.sm_clock = SmClockSetting{.default_mhz = 1980, .throttle_below_mhz = 1485};
  c.gpu_unavailable_reason = "";
  c.layers_unavailable = {{"pycuda", "import pycuda.driver failed"}};
  LayerRecord cpu;
  cpu.described = {{"threads", 8}};
  cpu.one_time_costs.add("OpenMP thread pool start", 1.5);
  c.layers["cpu"] = cpu;
  c.workloads = {find_workload("matmul")};
  c.ladder = LadderInfo{"matmul", "runtime", "4096", 6, "vendor"};
  return c;
}

// What tells two runs of one machine apart (two started in the same second): 128 random bits.
TEST(Record, EveryRunHasAnIdOfItsOwn) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = new_run_id();
    ASSERT_EQ(id.size(), 32u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    EXPECT_TRUE(seen.insert(id).second) << "run id drawn twice: " << id;
  }
  RunContext c;  // a context without one (a test's) writes none, as files before it
  EXPECT_FALSE(context_json(c).contains("run_id"));
}

TEST(Record, TheContextHasEveryFieldTheReportsReadUnderItsDocumentedName) {
  const RunContext c = full_context();
  const json j = context_json(c);
  EXPECT_EQ(j.at("date"), c.date);
  EXPECT_EQ(j.at("run_id"), c.run_id);
  EXPECT_EQ(j.at("executable"), c.executable);
  EXPECT_EQ(j.at("host_name"), "gpu-1");
  EXPECT_FALSE(j.contains("library_build_type"));  // dropped: layerbench does not know it for certain
  const json& lb = j.at("layerbench");
  EXPECT_EQ(lb.at("schema_version"), kSchemaVersion);
  EXPECT_EQ(lb.at("seed").get<std::uint64_t>(), c.seed);
  EXPECT_EQ(lb.at("command_line"), c.command_line);
  EXPECT_EQ(lb.at("suite_wall_s"), 12.5);
  EXPECT_TRUE(lb.contains("version") && lb.contains("source_commit"));
  EXPECT_EQ(lb.at("interrupted"), json({{"signal", "SIGINT"}, {"cases_planned", 9}, {"cases_started", 4}}));
  EXPECT_EQ(j.at("host"), json({{"hostname", "gpu-1"}, {"cpu_model", "Xeon"}, {"logical_cpus", 16},
                                {"openmp_threads", 8}, {"memory_bytes", 1.5e11}, {"os", "Linux 6.8.0"}}));
  // Google Benchmark's CPU information, under its JSON reporter's names.
  EXPECT_EQ(j.at("num_cpus"), 16);
  EXPECT_EQ(j.at("mhz_per_cpu"), 2600);
  EXPECT_EQ(j.at("cpu_scaling_enabled"), true);
  EXPECT_EQ(j.at("caches")[1], json({{"type", "Unified"}, {"level", 3}, {"size", 52428800}, {"num_sharing", 16}}));
  EXPECT_EQ(j.at("load_avg"), json({0.5, 0.25, 0.125}));

  const json& d = j.at("device");
  for (const char* key : {"index", "name", "uuid", "pci_bus_id", "compute_capability", "sm_count", "sm_clock_mhz",
                          "memory_clock_mhz", "memory_bus_width_bits", "l2_cache_bytes", "memory_bytes",
                          "theoretical_bandwidth_gbps", "theoretical_fp32_gflops", "driver_version",
                          "runtime_version", "context_creation_ms"})
    EXPECT_TRUE(d.contains(key)) << key;
  EXPECT_EQ(d.size(), 16u) << d.dump();
  EXPECT_EQ(d.at("uuid"), "GPU-8b1c0b9e-0000-1111-2222-333344445555");
  EXPECT_EQ(j.at("task"), json({{"pid", 4321}, {"slurm_job_id", "77"}, {"slurm_array_task_id", "3"}}));
  EXPECT_EQ(d.at("l2_cache_bytes"), 52428800);
  EXPECT_EQ(d.at("theoretical_fp32_gflops"), 66908.2);
  EXPECT_EQ(d.at("context_creation_ms"), 120.5);
  EXPECT_EQ(j.at("peaks"), peaks_json(*c.peaks));
  EXPECT_EQ(j.at("ceilings"), json({{"copy_gbps", 2900.0}, {"copy_bytes", 1073741824.0}, {"copy_median_ms", 0.74},
                                    {"copy_method", "copy"}, {"sgemm_gflops", 50000.0},
                                    {"sgemm_size", "4096x4096x4096"}, {"sgemm_median_ms", 2.7},
                                    {"sgemm_method", "sgemm"}}));
  EXPECT_EQ(j.at("context_probe"), json::parse(R"([{"when": "start", "us_per_kernel": 1.25},
                                                    {"when": "end", "us_per_kernel": 1.5}])"));
  EXPECT_EQ(j.at("measurement"),
            json({{"mode", "timed"}, {"gpu_cache_mode", "hot"}, {"cpu_cache_mode", "hot"}, {"gpu_timing", "events"},
                  {"noise_target", 0.01},
                  {"min_samples", 7}, {"min_time_s", 0.1}, {"enough_samples", 400}, {"max_time_s", 1.0}, {"cap_min_samples", 6},
                  {"stops_early_above_target", true},
                  {"l2_flush_bytes", 104857600},
                  {"sm_clock", {{"source", "NVML, read after each sample"}, {"default_mhz", 1980.0},
                                {"throttle_below_mhz", 1485.0}}}}));
  EXPECT_FALSE(j.contains("gpu_unavailable_reason"));  // empty: not written
  EXPECT_EQ(j.at("layers_unavailable"), json({{"pycuda", "import pycuda.driver failed"}}));
  EXPECT_EQ(j.at("layers").at("cpu"),
            json::parse(R"({"threads": 8, "on_gpu": false,
                            "one_time_costs": [{"what": "OpenMP thread pool start", "ms": 1.5, "kind": "setup"}]})"));
  EXPECT_EQ(j.at("workloads").at("matmul").at("figure"), "gflops");
  EXPECT_EQ(j.at("workloads").at("matmul").at("size_form"), "MxNxK");
  EXPECT_EQ(j.at("ladder"), json({{"workload", "matmul"}, {"layer", "runtime"}, {"size", "4096"}, {"rungs", 6},
                                  {"top_line", "vendor"}}));
}

// The task: the process's pid, and of the environment only the scheduler's identity and the GPUs
// it was given, under lower-case names; what is not set is left out.
TEST(Record, TheTaskIsThePidAndTheSlurmVariablesThatAreSet) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> visible_before = visible ? std::optional<std::string>(visible) : std::nullopt;
  ::setenv("SLURM_ARRAY_JOB_ID", "900", 1);
  ::setenv("SLURM_ARRAY_TASK_ID", "5", 1);
  ::setenv("CUDA_VISIBLE_DEVICES", "2", 1);
  ::unsetenv("SLURM_PROCID");
  ::setenv("SLURM_SOMETHING_ELSE", "x", 1);
  const TaskInfo t = query_task_info();
  EXPECT_EQ(t.pid, static_cast<long>(::getpid()));
  EXPECT_EQ(t.environment.at("slurm_array_job_id"), "900");
  EXPECT_EQ(t.environment.at("slurm_array_task_id"), "5");
  EXPECT_EQ(t.environment.at("cuda_visible_devices"), "2");
  EXPECT_FALSE(t.environment.contains("slurm_procid"));
  EXPECT_FALSE(t.environment.contains("slurm_something_else"));
  for (const char* name : {"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "CUDA_VISIBLE_DEVICES", "SLURM_SOMETHING_ELSE"})
    ::unsetenv(name);
  if (visible_before) ::setenv("CUDA_VISIBLE_DEVICES", visible_before->c_str(), 1);
}

TEST(Record, WhatARunWithoutAGpuOrACheckLeavesOutIsNullOrAbsent) {
  RunContext c;
  c.gpu_unavailable_reason = "no CUDA device";
  json j = context_json(c);
  EXPECT_TRUE(j.at("device").is_null());
  EXPECT_TRUE(j.at("peaks").is_null());
  EXPECT_TRUE(j.at("context_probe").is_null());
  EXPECT_EQ(j.at("ceilings"), json::object());
  EXPECT_TRUE(j.at("measurement").at("sm_clock").is_null());
  EXPECT_FALSE(j.at("measurement").contains("l2_flush_bytes"));
  EXPECT_EQ(j.at("gpu_unavailable_reason"), "no CUDA device");
  EXPECT_FALSE(j.contains("layers_unavailable") || j.contains("ladder") || j.at("layerbench").contains("interrupted"));
  c.measurement.check_only = true;
  EXPECT_EQ(context_json(c).at("measurement"), json({{"mode", "check"}}));
  c.measurement.check_only = false;
  c.measurement.sm_clock = SmClockSetting{.unavailable = "no libnvidia-ml.so.1"};
  EXPECT_EQ(context_json(c).at("measurement").at("sm_clock"), json({{"unavailable", "no libnvidia-ml.so.1"}}));
  DeviceInfo unknown_architecture;
  EXPECT_TRUE(device_json(unknown_architecture).at("theoretical_fp32_gflops").is_null());
}

// A timed case of `layer`: samples with a median of `median_ms`.
CaseResult timed_case(const char* layer, double median_ms, int repetition = 0, int repetitions = 1) {
  CaseResult r;
  r.spec = {find_workload("vector_add"), find_layer(layer), Shape{1, 1000, 1}};
  r.status = CaseStatus::kOk;
  r.benchmarked = true;
  r.repetition_index = repetition;
  r.repetitions = repetitions;
  r.checked = true;
  r.verdict.passed = true;
  r.stats = {.count = 40, .median_ms = median_ms, .mean_ms = median_ms, .min_ms = median_ms, .max_ms = median_ms,
             .rel_stddev = 0.002};
  r.cpu_ms = 8.0;
  r.stop_reason = Stop::kNoiseReached;
  r.gbps = 12000.0 / (median_ms * 1e-3) / 1e9;
  r.gflops = 1000.0 / (median_ms * 1e-3) / 1e9;
  return r;
}

TEST(Record, ATimedCaseIsAManualTimeBenchmarkWhoseIterationsAreItsSamples) {
  RunContext context = full_context();
  const json b = benchmarks_json(context, {timed_case("cpu", 0.25)});
  ASSERT_EQ(b.size(), 1u);
  const json& e = b[0];
  EXPECT_EQ(e.at("name"), "vector_add/cpu/1000/manual_time");
  EXPECT_EQ(e.at("run_name"), "vector_add/cpu/1000/manual_time");
  EXPECT_EQ(e.at("run_type"), "iteration");
  EXPECT_EQ(e.at("iterations"), 40);
  EXPECT_NEAR(e.at("real_time").get<double>(), 0.25, 1e-12);  // the median
  EXPECT_NEAR(e.at("cpu_time").get<double>(), 8.0 / 40, 1e-12);  // per sample
  EXPECT_EQ(e.at("time_unit"), "ms");
  EXPECT_EQ(e.at("repetitions"), 1);
  EXPECT_EQ(e.at("repetition_index"), 0);
  EXPECT_EQ(e.at("threads"), 1);
  EXPECT_EQ(e.at("family_index"), 0);
  EXPECT_EQ(e.at("per_family_instance_index"), 0);
  EXPECT_EQ(e.at("median_ms"), 0.25);
  EXPECT_EQ(e.at("samples"), 40);
  EXPECT_EQ(e.at("status"), "ok");
  EXPECT_FALSE(e.contains("error_occurred") || e.contains("skipped") || e.contains("aggregate_name"));
  EXPECT_TRUE(e.at("fraction_of_copy").is_null());  // a CPU layer: the device bounds nothing
  EXPECT_TRUE(e.at("fraction_of_cublas").is_null());

  // The fractions of a GPU layer's case come from the context's ceilings and device.
  const CaseResult gpu = timed_case("runtime", 0.25);
  const json g = benchmarks_json(context, {gpu})[0];
  EXPECT_DOUBLE_EQ(g.at("fraction_of_copy").get<double>(), gpu.gbps / 2900);
  EXPECT_DOUBLE_EQ(g.at("fraction_of_theoretical_bandwidth").get<double>(), gpu.gbps / 3352.3);
  EXPECT_DOUBLE_EQ(g.at("fraction_of_cublas").get<double>(), gpu.gflops / 50000);
  EXPECT_DOUBLE_EQ(g.at("fraction_of_theoretical_fp32").get<double>(), gpu.gflops / 66908.2);
  context.ceilings = {};
  context.device->theoretical_fp32_gflops.reset();
  const json without = benchmarks_json(context, {gpu})[0];
  EXPECT_TRUE(without.at("fraction_of_copy").is_null() && without.at("fraction_of_cublas").is_null() &&
              without.at("fraction_of_theoretical_fp32").is_null());
  EXPECT_TRUE(without.at("fraction_of_theoretical_bandwidth").is_number());

  // The run the console table prints is the one the JSON's Google Benchmark fields come from.
  const BenchmarkRun run = benchmark_run(gpu, 3);
  EXPECT_EQ(run.benchmark_name(), "vector_add/runtime/1000/manual_time");
  EXPECT_EQ(run.iterations, 40);
  EXPECT_NEAR(run.GetAdjustedRealTime(), 0.25, 1e-12);
  EXPECT_EQ(run.report_label, "verified");
  EXPECT_EQ(run.counters.at("samples").value, 40);
  EXPECT_FALSE(not_timed_ok(run));
}

TEST(Record, ATimedCaseKeepsItsSamplesWhoseClockItIsAndWhatElseRan) {
  RunContext context = full_context();
  CaseResult r = timed_case("runtime", 0.25);
  r.samples_ms = {0.2501, 0.25, 0.31};
  r.host_timed = false;
  r.load.read = true;
  r.load.load_avg_1m = 3.5;
  r.load.other_cpus = 0.25;
  r.load.cpu_window_s = 0.4;
  r.load.cpus = 16;
  r.load.other_gpu_pids = std::vector<unsigned>{4242};
  r.busy = busy_reasons(r.load, true, r.host_timed);
  const json e = benchmarks_json(context, {r})[0];
  EXPECT_EQ(e.at("samples_ms"), json({0.2501, 0.25, 0.31}));
  EXPECT_EQ(e.at("timed_by"), "device");
  EXPECT_EQ(e.at("machine_load").at("load_avg_1m"), 3.5);
  EXPECT_EQ(e.at("machine_load").at("other_cpus"), 0.25);
  EXPECT_EQ(e.at("machine_load").at("other_gpu_pids"), json({4242}));
  EXPECT_FALSE(e.at("machine_load").contains("gpu_processes_unavailable"));
  EXPECT_EQ(e.at("busy"), json({"another process on the GPU (pid 4242)"}));

  // A CPU layer: host-timed, no GPU processes (and why), not busy while others used under a CPU.
  CaseResult cpu = timed_case("cpu", 0.25);
  cpu.host_timed = true;
  cpu.load.read = true;
  cpu.load.other_cpus = 0.5;
  cpu.load.cpu_window_s = 1.0;
  cpu.load.cpus = 16;
  cpu.load.gpu_processes_unavailable = "a CPU layer";
  cpu.busy = busy_reasons(cpu.load, false, cpu.host_timed);
  const json c = benchmarks_json(context, {cpu})[0];
  EXPECT_EQ(c.at("timed_by"), "host");
  EXPECT_TRUE(c.at("machine_load").at("other_gpu_pids").is_null());
  EXPECT_EQ(c.at("machine_load").at("gpu_processes_unavailable"), "a CPU layer");
  EXPECT_TRUE(c.at("machine_load").at("load_avg_1m").is_null());  // not read: null, never 0
  EXPECT_EQ(c.at("busy"), json::array());
}

// On a GPU: another process that holds a CUDA context on the device is listed by NVML among the
// other processes, and makes a GPU case busy. The other process is this test, started again with
// LB_TEST_HOLD_CONTEXT set: then it holds a context until it is killed.
TEST(MachineLoadOnTheGpu, AnotherProcessWithAContextIsListed) {
  constexpr const char* kHolder = "LB_TEST_HOLD_CONTEXT";
  if (std::getenv(kHolder)) {
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
    std::this_thread::sleep_for(std::chrono::seconds(60));  // killed long before
    return;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no usable GPU";
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // ours: listed as this process (or, in a container, taken as ours)
  char bus[32] = {};
  ASSERT_EQ(cudaDeviceGetPCIBusId(bus, sizeof bus, 0), cudaSuccess);
  std::string why;
  const auto processes = GpuProcesses::open(bus, &why);
  ASSERT_TRUE(processes) << why;
  const auto before = processes->others(&why);
  ASSERT_TRUE(before) << why;

  const std::string filter = "--gtest_filter=MachineLoadOnTheGpu.AnotherProcessWithAContextIsListed";
  char* argv[] = {const_cast<char*>("/proc/self/exe"), const_cast<char*>(filter.c_str()), nullptr};
  std::vector<std::string> env_text = {std::string(kHolder) + "=1"};
  for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t holder = 0;
  ASSERT_EQ(posix_spawn(&holder, "/proc/self/exe", nullptr, nullptr, argv, env.data()), 0);

  bool listed = false;
  MachineLoad load;
  for (int tries = 0; tries < 300 && !listed; ++tries) {  // up to 30 s for its context
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto now = processes->others(&why);
    ASSERT_TRUE(now) << why;
    listed = now->size() > before->size();
    load.other_gpu_pids = now;
  }
  kill(holder, SIGKILL);
  int status = 0;
  waitpid(holder, &status, 0);
  ASSERT_TRUE(listed) << "NVML listed no process besides those before the holder started";
  load.read = true;
  const std::vector<std::string> reasons = busy_reasons(load, true, false);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("on the GPU (pid"), std::string::npos) << reasons[0];
}

TEST(Record, CasesThatDidNotTimeCarryGoogleBenchmarksSkipOrErrorFields) {
  const RunContext context;
  CaseResult skipped;  // skipped before it was prepared: never a benchmark
  skipped.spec = {find_workload("vector_add"), find_layer("cpu"), Shape{1, 1000, 1}};
  skipped.status = CaseStatus::kSkipped;
  skipped.message = "does not fit in host memory";
  CaseResult failed = timed_case("cpu", 0.25);
  failed.spec.shape.n = 2000;
  failed.status = CaseStatus::kFailed;
  failed.message = "verification failed";
  failed.stats = {};
  CaseResult interrupted = timed_case("cpu", 0.5);
  interrupted.spec.shape.n = 3000;
  interrupted.status = CaseStatus::kInterrupted;
  interrupted.message = "interrupted (SIGINT) after 40 samples: not a full measurement";
  const json b = benchmarks_json(context, {skipped, failed, interrupted});
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].at("name"), "vector_add/cpu/1000");  // bare: never timed
  EXPECT_EQ(b[0].at("iterations"), 0);
  EXPECT_EQ(b[0].at("real_time"), 0);
  EXPECT_EQ(b[0].at("skipped"), true);
  EXPECT_EQ(b[0].at("skip_message"), "does not fit in host memory");
  EXPECT_FALSE(b[0].contains("error_occurred"));
  EXPECT_EQ(b[1].at("name"), "vector_add/cpu/2000/manual_time");
  EXPECT_EQ(b[1].at("iterations"), 0);
  EXPECT_EQ(b[1].at("error_occurred"), true);
  EXPECT_EQ(b[1].at("error_message"), "verification failed");
  EXPECT_FALSE(b[1].contains("median_ms"));
  EXPECT_EQ(b[2].at("error_occurred"), true);  // its samples are not a full measurement
  EXPECT_EQ(b[2].at("iterations"), 40);       // but they are kept
  EXPECT_EQ(b[2].at("median_ms"), 0.5);
  EXPECT_EQ(b[2].at("family_index"), 2);
  EXPECT_TRUE(not_timed_ok(benchmark_run(failed, 1)));
}

TEST(Record, RepetitionsAreEntriesOfTheirOwnFollowedByGoogleBenchmarksAggregates) {
  const RunContext context;
  std::vector<CaseResult> cases = {timed_case("cpu", 1.0, 0, 3), timed_case("cpu", 2.0, 1, 3),
                                   timed_case("cpu", 4.0, 2, 3)};
  cases.push_back(timed_case("cpu", 1.0));
  cases.back().spec.shape.n = 2000;
  const json b = benchmarks_json(context, cases);
  ASSERT_EQ(b.size(), 3u + 4u + 1u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(b[i].at("run_type"), "iteration");
    EXPECT_EQ(b[i].at("repetition_index"), i);
    EXPECT_EQ(b[i].at("repetitions"), 3);
    EXPECT_EQ(b[i].at("family_index"), 0);
    EXPECT_EQ(b[i].at("median_ms"), cases[i].stats.median_ms);  // each repetition's own measurement
  }
  const std::vector<std::string> names = {"mean", "median", "stddev", "cv"};
  for (int i = 0; i < 4; ++i) {
    const json& a = b[3 + i];
    EXPECT_EQ(a.at("run_type"), "aggregate");
    EXPECT_EQ(a.at("aggregate_name"), names[i]);
    EXPECT_EQ(a.at("name"), "vector_add/cpu/1000/manual_time_" + names[i]);
    EXPECT_EQ(a.at("run_name"), "vector_add/cpu/1000/manual_time");
    EXPECT_EQ(a.at("repetition_index"), -1);
    EXPECT_EQ(a.at("iterations"), 3);
    EXPECT_EQ(a.at("workload"), "vector_add");  // which case, and nothing measured
    EXPECT_EQ(a.at("layer"), "cpu");
    EXPECT_EQ(a.at("n"), 1000);
    EXPECT_FALSE(a.contains("median_ms") || a.contains("status"));
  }
  const double mean = 7.0 / 3, stddev = std::sqrt(((1 - mean) * (1 - mean) + (2 - mean) * (2 - mean) +
                                                   (4 - mean) * (4 - mean)) / 2);
  EXPECT_NEAR(b[3].at("real_time").get<double>(), mean, 1e-12);
  EXPECT_NEAR(b[4].at("real_time").get<double>(), 2.0, 1e-12);
  EXPECT_NEAR(b[5].at("real_time").get<double>(), stddev, 1e-12);
  EXPECT_NEAR(b[6].at("real_time").get<double>(), stddev / mean, 1e-12);  // a fraction, as Google Benchmark writes it
  EXPECT_EQ(b[7].at("family_index"), 1);
  EXPECT_EQ(b[7].at("repetitions"), 1);

  // A failed repetition is left out of the statistics; with fewer than two left, there are none.
  cases[2].status = CaseStatus::kFailed;
  cases[2].message = "faster than the hardware allows";
  const std::vector<BenchmarkRun> runs = {benchmark_run(cases[0], 0), benchmark_run(cases[1], 0),
                                          benchmark_run(cases[2], 0)};
  const std::vector<BenchmarkRun> aggregates = aggregate_runs(runs);
  ASSERT_EQ(aggregates.size(), 4u);
  EXPECT_NEAR(aggregates[0].GetAdjustedRealTime(), 1.5, 1e-12);
  EXPECT_TRUE(aggregate_runs({runs[0], runs[2]}).empty());
}

TEST(Record, TheFilterIsARegexSearchOfTheBenchmarkNameAndAnyOtherFlagIsRefused) {
  EXPECT_TRUE(filter_matches("", "vector_add/cpu/1000/manual_time"));
  EXPECT_TRUE(filter_matches("all", "vector_add/cpu/1000/manual_time"));
  EXPECT_TRUE(filter_matches("cpu/1", "vector_add/cpu/1000/manual_time"));   // a search, not a whole match
  EXPECT_TRUE(filter_matches("^(reduce|vector_add)/", "vector_add/cpu/1000/manual_time"));
  EXPECT_FALSE(filter_matches("^cpu", "vector_add/cpu/1000/manual_time"));
  EXPECT_FALSE(filter_matches("-vector_add", "vector_add/cpu/1000/manual_time"));  // '-' negates
  EXPECT_TRUE(filter_matches("-vector_add", "reduce/cpu/1000/manual_time"));

  const BenchmarkFlags flags = parse_benchmark_flags({"--benchmark_filter=reduce", "--benchmark_repetitions=3"});
  EXPECT_EQ(flags.filter, "reduce");
  EXPECT_EQ(flags.repetitions, 3);
  EXPECT_EQ(parse_benchmark_flags({}).repetitions, 1);
  const auto refused = [](const std::string& flag) -> std::string {
    try {
      parse_benchmark_flags({flag});
    } catch (const UsageError& e) {
      return e.what();
    }
    return "accepted";
  };
  for (const char* flag : {"--benchmark_min_time=2", "--benchmark_out=x.json", "--benchmark_format=json",
                           "--benchmark_list_tests", "--benchmark_display_aggregates_only=true",
                           "--benchmark_color=false", "--benchmark_enable_random_interleaving=true"}) {
    const std::string why = refused(flag);
    EXPECT_TRUE(why.starts_with("'" + std::string(flag) + "' does not apply: layerbench times each case itself; "))
        << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
  EXPECT_EQ(refused("--benchmark_nonsense=1"), "unknown option '--benchmark_nonsense=1' (see layerbench run --help)");
  EXPECT_NE(refused("--benchmark_repetitions=0").find("at least 1"), std::string::npos);
  EXPECT_NE(refused("--benchmark_filter=[").find("not a regular expression"), std::string::npos);
  EXPECT_NE(refused("--benchmark_filter").find("--benchmark_filter=REGEX"), std::string::npos);
}

TEST(Record, TheFilterKeepsTheMatchingCasesOfThePlanAndRefusesOneThatKeepsNone) {
  SuitePlan plan = plan_suite({.workloads = {"vector_add", "reduce"}, .layers = {"cpu"}, .sizes = {"1000", "2000"}});
  ASSERT_EQ(plan.cases.size(), 4u);
  keep_filtered_cases(plan, "reduce/cpu/2000");
  ASSERT_EQ(plan.cases.size(), 1u);
  EXPECT_EQ(plan.cases[0].name(), "reduce/cpu/2000");
  ASSERT_EQ(plan.workloads.size(), 1u);  // vector_add has no case left: not part of the run
  EXPECT_EQ(plan.workloads[0]->name(), "reduce");
  EXPECT_THROW(keep_filtered_cases(plan, "matmul"), UsageError);
  try {
    keep_filtered_cases(plan, "matmul");
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "'--benchmark_filter=matmul' matches no case of this run (its one case: reduce/cpu/2000/manual_time)");
  }
}

}  // namespace
}  // namespace lb
