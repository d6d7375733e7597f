// The command line and the results file, through the real executable: exit codes, one-line
// errors naming the bad value, no partial file, and the JSON contract that Google Benchmark's
// tools/compare.py reads (name, run_name, run_type, real_time, cpu_time, time_unit, iterations,
// repetitions, family_index, per_family_instance_index) plus layerbench's fields.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/gpu.h"
#include "harness/sampling.h"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("layerbench_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome run(const std::string& args, const char* exe = LB_EXE) const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string command = std::string(exe) + " " + args + " >" + out.string() + " 2>" + err.string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }

  fs::path dir_;
};

// One line on stderr that names the value, exit code 2, and no results file.
void expect_usage_error(const Outcome& o, const std::string& names, const fs::path& out) {
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find(names), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, ListNamesWorkloadsAndLayers) {
  const Outcome o = run("list");
  EXPECT_EQ(o.code, 0);
  for (const char* name : {"vector_add", "saxpy", "reduce", "matmul", "cpu", "runtime"})
    EXPECT_NE(o.out.find(name), std::string::npos) << name;
}

TEST_F(Cli, HelpOnEverySubcommand) {
  EXPECT_EQ(run("--help").code, 0);
  EXPECT_EQ(run("list --help").code, 0);
  const Outcome o = run("run --help");
  EXPECT_EQ(o.code, 0);
  for (const char* flag : {"--workload", "--layer", "--size", "--out", "--seed", "--benchmark_"})
    EXPECT_NE(o.out.find(flag), std::string::npos) << flag;
}

TEST_F(Cli, NoSubcommandIsAnError) { EXPECT_EQ(run("").code, 2); }

// Every command's help reads the same way, whether CLI11 writes it (list, run, ladder, lab) or the
// Python report tool (report, compare, csv, merge, db): the description, then "Usage: layerbench
// COMMAND ...", then "Options:"; `layerbench help COMMAND` prints the same, exit 0.
TEST_F(Cli, EveryCommandsHelpReadsTheSameWay) {
  for (const std::string command : {"", "list", "run", "ladder", "lab", "report", "compare", "csv", "merge", "db"}) {
    const Outcome o = run(command + " --help");
    EXPECT_EQ(o.code, 0) << command << ": " << o.err;
    const std::string usage = "Usage: layerbench" + (command.empty() ? "" : " " + command) + " ";
    const std::size_t at = o.out.find("\n" + usage);
    EXPECT_NE(at, std::string::npos) << command << ":\n" << o.out;
    EXPECT_GT(at, 0u) << command << ": the description comes first:\n" << o.out;
    EXPECT_EQ(o.out.find("usage:"), std::string::npos) << command << ":\n" << o.out;
    EXPECT_NE(o.out.find("\nOptions:\n", at), std::string::npos) << command << ":\n" << o.out;
    const Outcome help = run("help " + command);
    EXPECT_EQ(help.code, 0) << command << ": " << help.err;
    EXPECT_EQ(help.out, o.out) << command;
  }
}

TEST_F(Cli, AnUnknownCommandIsOneLineAndExit2) {
  for (const char* args : {"bogus", "help bogus", "help run extra"}) {
    const Outcome o = run(args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << args << ": " << o.out;
  }
  EXPECT_NE(run("bogus").err.find("'bogus'"), std::string::npos);
}

// --version: the version and the commit the build's sources were at, by cmake/version.cmake's rule:
// "layerbench 0.1.0+g<12 hex>[.dirty] (commit <40 hex>[-dirty])" (a release tag's version on a
// clean tagged commit), or "layerbench 0.1.0+unknown (commit unknown: <why>)" outside git; the same
// version as the results' context.layerbench.version.
TEST_F(Cli, VersionNamesTheCommit) {
  const Outcome o = run("--version");
  EXPECT_EQ(o.code, 0) << o.err;
  const std::string prefix = "layerbench ";
  ASSERT_EQ(o.out.rfind(prefix, 0), 0u) << o.out;
  const std::string version = o.out.substr(prefix.size(), o.out.find(' ', prefix.size()) - prefix.size());
  // Before the first release tag: project(VERSION) with the commit as a local label.
  const bool tagged = version.find('+') == std::string::npos;
  EXPECT_TRUE(tagged || version.rfind(std::string(LB_PROJECT_VERSION) + "+", 0) == 0) << o.out;
  const std::string open = " (commit ";
  ASSERT_EQ(o.out.find(open, prefix.size()), prefix.size() + version.size()) << o.out;
  const std::size_t start = prefix.size() + version.size() + open.size();
  const std::string commit = o.out.substr(start, o.out.find_first_of(":)", start) - start);
  const std::size_t digits = std::min(commit.find_first_not_of("0123456789abcdef"), commit.size());
  const bool dirty = commit.size() > 40 && commit.substr(40) == "-dirty";
  if (digits == 40 && (commit.size() == 40 || dirty)) {
    const std::string label = "+g" + commit.substr(0, 12) + (dirty ? ".dirty" : "");
    EXPECT_TRUE(tagged || version.substr(version.find('+')) == label) << o.out;
  } else {
    EXPECT_EQ(commit, "unknown") << o.out;
    EXPECT_NE(version.find("+unknown"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("(commit unknown: no .git in "), std::string::npos) << o.out;
  }
  EXPECT_EQ(o.out.substr(o.out.find(')')), ")\n") << o.out;
}

TEST_F(Cli, ReportCommandsHandOverToThePythonTool) {
  const Outcome help = run("compare --help");
  EXPECT_EQ(help.code, 0) << help.err;
  EXPECT_NE(help.out.find("BASE.json"), std::string::npos) << help.out;
  const fs::path missing = dir_ / "missing.json";
  const Outcome bad = run("report " + missing.string());
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find(missing.string()), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST_F(Cli, BadNamesAndSizesAreOneLineErrors) {
  const fs::path out = dir_ / "r.json";
  const std::string o = " --out " + out.string();
  expect_usage_error(run("run --workload vector_add,nope" + o), "'nope'", out);
  expect_usage_error(run("run --layer gpu9" + o), "'gpu9'", out);
  for (const char* size : {"0", "-5", "abc", "2^99", "1.5", "99999999999999999999"})
    expect_usage_error(run(std::string("run --workload vector_add --size=") + size + o), std::string("'") + size + "'",
                       out);
  // Too large for this machine is not bad input: the case is skipped with its reason (plan.h).
  const Outcome big = run("run --workload vector_add --layer cpu --size 2^50" + o);
  EXPECT_EQ(big.code, 0) << big.err;
  EXPECT_NE(big.out.find("skipped: does not fit in host memory: needs 16.0 PiB"), std::string::npos) << big.out;
  fs::remove(out);
  expect_usage_error(run("run --workload vector_add --size 8x8x8" + o), "'8x8x8'", out);
  expect_usage_error(run("run --workload matmul --size 8x8" + o), "'8x8'", out);
  expect_usage_error(run("run --bogus" + o), "--bogus", out);
  expect_usage_error(run("run --min-time=-1" + o), "-1", out);
}

TEST_F(Cli, UnwritableOutputIsRefusedBeforeRunning) {
  const fs::path file = dir_ / "a_file";
  std::ofstream(file) << "x";
  const fs::path inside_file = file / "r.json";
  expect_usage_error(run("run --layer cpu --size 10 --out " + inside_file.string()), inside_file.string(), inside_file);
  const Outcome o = run("run --layer cpu --size 10 --out " + dir_.string());
  EXPECT_EQ(o.code, 2);
}

TEST_F(Cli, CpuRunWritesTheJsonContract) {
  const fs::path out = dir_ / "nested" / "r.json";
  const Outcome o = run("run --layer cpu --size 1000 --min-time 0.01 --max-time 0.2 --seed 5 --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.err << o.out;
  // Not a terminal here: progress and tables must be plain text.
  for (const std::string* stream : {&o.out, &o.err}) {
    EXPECT_EQ(stream->find('\r'), std::string::npos) << *stream;
    EXPECT_EQ(stream->find('\x1b'), std::string::npos) << *stream;
  }
  const nlohmann::json j = nlohmann::json::parse(slurp(out));
  const auto& ctx = j.at("context");
  EXPECT_EQ(ctx.at("layerbench").at("schema_version"), 2);
  // What readers need not guess from names: where each layer runs, what each workload's figure is.
  EXPECT_EQ(ctx.at("layers").at("cpu").at("on_gpu"), false);
  EXPECT_EQ(ctx.at("workloads").at("vector_add").at("figure"), "gbps");
  EXPECT_EQ(ctx.at("workloads").at("matmul").at("figure"), "gflops");
  EXPECT_EQ(ctx.at("layerbench").at("seed"), 5);
  for (const char* key : {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "caches", "host", "layers"})
    EXPECT_TRUE(ctx.contains(key)) << key;
  EXPECT_GT(ctx.at("layers").at("cpu").at("threads").get<int>(), 0);
  EXPECT_TRUE(ctx.at("layers").at("cpu").at("matmul").is_string());

  const auto& benchmarks = j.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 5u);  // five workloads, one size, one layer (no launch workloads on cpu)
  for (const char* key : {"gpu_cache_mode", "noise_target", "min_samples", "min_time_s", "max_time_s"})
    EXPECT_TRUE(ctx.at("measurement").contains(key)) << key;
  std::set<std::string> workloads;
  for (const auto& b : benchmarks) {
    SCOPED_TRACE(b.dump());
    for (const char* key : {"name", "run_name", "run_type", "real_time", "cpu_time", "time_unit", "iterations",
                            "repetitions", "repetition_index", "threads", "family_index",
                            "per_family_instance_index", "workload", "layer", "gbps", "gflops", "verified",
                            "max_rel_error", "tolerance", "end_to_end_ms", "median_ms", "samples", "status",
                            "rel_stddev", "mean_ms", "min_ms", "max_ms", "cache_mode", "noise_target_reached",
                            "measurement_wall_s", "throttled_samples", "mean_sm_clock_mhz", "fraction_of_copy"})
      EXPECT_TRUE(b.contains(key)) << key;
    EXPECT_EQ(b.at("run_type"), "iteration");
    EXPECT_EQ(b.at("time_unit"), "ms");
    EXPECT_EQ(b.at("layer"), "cpu");
    EXPECT_EQ(b.at("status"), "ok");
    EXPECT_EQ(b.at("cache_mode"), "hot");               // CPU layers are not flushed
    EXPECT_TRUE(b.at("mean_sm_clock_mhz").is_null());   // no GPU clock for a CPU case
    EXPECT_TRUE(b.at("fraction_of_copy").is_null());
    EXPECT_GE(b.at("samples").get<int>(), 1);
    EXPECT_TRUE(b.at("verified").get<bool>());
    EXPECT_GT(b.at("real_time").get<double>(), 0.0);
    EXPECT_GT(b.at("gbps").get<double>(), 0.0);
    EXPECT_LE(b.at("max_rel_error").get<double>(), b.at("tolerance").get<double>());
    EXPECT_EQ(b.at("name").get<std::string>().rfind(b.at("workload").get<std::string>() + "/cpu/", 0), 0u);
    workloads.insert(b.at("workload"));
    if (b.at("workload") == "matmul") {
      EXPECT_EQ(b.at("m"), 1000);
      EXPECT_EQ(b.at("k"), 1000);
    }
    if (b.at("workload") == "transpose") {  // one number is a square, and a matrix has no k
      EXPECT_EQ(b.at("m"), 1000);
      EXPECT_FALSE(b.contains("k"));
    }
    EXPECT_EQ(b.at("n"), 1000);
  }
  EXPECT_EQ(workloads.size(), 5u);
  EXPECT_FALSE(fs::exists(out.string() + ".tmp." + std::to_string(getpid())));
}

// --benchmark_filter selects cases as Google Benchmark's filter does (a regex search of the name), and
// only those cases run: the others are neither prepared nor recorded, and the run names no more.
// The stopping rule the JSON records is the one the flags asked for: --thorough's longer cap and
// no sample count standing in for --min-time, and an explicit --max-time over either default.
TEST_F(Cli, ThoroughAndMaxTimeReachTheRecordedRule) {
  const auto rule_of = [&](const std::string& flags) {
    const fs::path out = dir_ / "rule.json";
    const Outcome o = run("run --layer cpu --workload vector_add --size 1000 --min-time 0.01 " + flags + " --out " +
                          out.string());
    EXPECT_EQ(o.code, 0) << o.err;
    return nlohmann::json::parse(slurp(out)).at("context").at("measurement");
  };
  const lb::StoppingRule quick;
  nlohmann::json m = rule_of("");
  EXPECT_EQ(m.at("enough_samples"), quick.enough_samples);
  EXPECT_DOUBLE_EQ(m.at("max_time_s").get<double>(), quick.max_time_s);
  m = rule_of("--thorough");
  EXPECT_EQ(m.at("enough_samples"), 0);
  EXPECT_DOUBLE_EQ(m.at("max_time_s").get<double>(), 3.0);
  m = rule_of("--thorough --max-time 0.2");
  EXPECT_EQ(m.at("enough_samples"), 0);
  EXPECT_DOUBLE_EQ(m.at("max_time_s").get<double>(), 0.2);
}

TEST_F(Cli, BenchmarkFilterSelectsTheCasesItFinds) {
  const fs::path out = dir_ / "r.json";
  const Outcome o =
      run("run --layer cpu -w vector_add,saxpy,reduce --size 100 --min-time 0.01 --max-time 0.05 "
          "--benchmark_filter=^red --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(slurp(out));
  ASSERT_EQ(j.at("benchmarks").size(), 1u);
  const auto& b = j.at("benchmarks")[0];
  EXPECT_EQ(b.at("workload"), "reduce");
  EXPECT_EQ(b.at("name"), "reduce/cpu/100/manual_time");
  EXPECT_EQ(b.at("iterations"), b.at("samples"));  // an iteration is a sample; its time the median
  EXPECT_DOUBLE_EQ(b.at("real_time").get<double>(), b.at("median_ms").get<double>());
  EXPECT_EQ(j.at("context").at("workloads").size(), 1u) << j.at("context").at("workloads").dump();
  EXPECT_FALSE(j.at("context").contains("library_build_type"));  // no longer recorded
  EXPECT_TRUE(j.at("context").at("num_cpus").is_number());         // Google Benchmark's CPU information
  EXPECT_NE(o.out.find("1 cases in"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("reduce/cpu/100/manual_time"), std::string::npos) << o.out;  // Google Benchmark's table
  // A leading '-' keeps the cases it does not find.
  ASSERT_EQ(run("run --layer cpu -w vector_add,saxpy,reduce --size 100 --min-time 0.01 --max-time 0.05 "
                "--benchmark_filter=-reduce --out " + out.string()).code, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(out)).at("benchmarks").size(), 2u);
  // One that finds none is bad input.
  const fs::path none = dir_ / "none.json";
  expect_usage_error(run("run --layer cpu -w vector_add,saxpy,reduce --size 100 --benchmark_filter=nothing --out " +
                         none.string()),
                     "'--benchmark_filter=nothing' matches none of this run's 3 cases "
                     "(named like vector_add/cpu/100/manual_time)",
                     none);
}

// Google Benchmark's other flags mean nothing to a harness that times each case itself: each is
// refused in one line naming it, and a --benchmark_ word that is none of its flags is an unknown option.
TEST_F(Cli, BenchmarkFlagsThatNoLongerMeanAnythingAreRefused) {
  const fs::path out = dir_ / "r.json";
  for (const char* flag : {"--benchmark_min_time=2", "--benchmark_out=gb.json", "--benchmark_format=json",
                           "--benchmark_list_tests", "--benchmark_report_aggregates_only=true"}) {
    const Outcome o = run("run --layer cpu --size 100 " + std::string(flag) + " --out " + out.string());
    expect_usage_error(o, "'" + std::string(flag) + "' does not apply: layerbench times each case itself", out);
  }
  expect_usage_error(run("run --layer cpu --size 100 --benchmark_nonsense=1 --out " + out.string()),
                     "unknown option '--benchmark_nonsense=1'", out);
}

// --benchmark_repetitions=N: N entries per case, each its own measurement, then Google Benchmark's
// aggregates; the summary counts cases, not repetitions.
TEST_F(Cli, BenchmarkRepetitionsMeasureEachCaseThatManyTimes) {
  const fs::path out = dir_ / "r.json";
  const Outcome o = run("run --layer cpu -w vector_add,reduce --size 100 --min-time 0.01 --max-time 0.05 "
                        "--benchmark_repetitions=3 --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("2 cases in"), std::string::npos) << o.out;
  const auto j = nlohmann::json::parse(slurp(out));
  const auto& benchmarks = j.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 2u * (3 + 4)) << benchmarks.dump();
  for (int i = 0; i < 3; ++i) {
    const auto& b = benchmarks[i];
    EXPECT_EQ(b.at("run_type"), "iteration");
    EXPECT_EQ(b.at("repetition_index"), i);
    EXPECT_EQ(b.at("repetitions"), 3);
    EXPECT_DOUBLE_EQ(b.at("real_time").get<double>(), b.at("median_ms").get<double>());  // its own median
  }
  const std::vector<std::string> aggregates = {"mean", "median", "stddev", "cv"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(benchmarks[3 + i].at("run_type"), "aggregate");
    EXPECT_EQ(benchmarks[3 + i].at("aggregate_name"), aggregates[i]);
  }
  EXPECT_EQ(benchmarks[7].at("workload"), "reduce");
}

TEST_F(Cli, WithoutAGpuTheGpuLayersAreSkippedInOneLine) {
  if (lb::gpu_unavailable_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  const fs::path out = dir_ / "r.json";
  const Outcome o = run("run --workload vector_add --size 100 --min-time 0.01 --out " + out.string());
  EXPECT_EQ(o.code, 0) << o.err;
  // One line for all GPU layers, naming them and CUDA's reason; a Python layer whose package is
  // missing, or a build without the Python layers, says so on that same line, after the reason.
  const auto line = o.err.find("layerbench: GPU layers skipped (runtime, graph, driver, thrust");
  ASSERT_NE(line, std::string::npos) << o.err;
  std::istringstream lines(o.err);
  int ours = 0;
  for (std::string l; std::getline(lines, l);) ours += l.starts_with("layerbench: ");
  EXPECT_EQ(ours, 1) << "not one line: " << o.err;
  // The reason in the user's terms, the same one the library gives (gpu_unavailable_reason).
  const std::string why = lb::gpu_unavailable_reason();
  EXPECT_TRUE(why == "no CUDA device" || why == "no CUDA driver (libcuda.so.1 not found)" ||
              why.starts_with("driver older than the runtime (driver ") || why.starts_with("cudaGetDeviceCount: "))
      << why;
  const auto reason = o.err.find("): " + why, line);
  EXPECT_NE(reason, std::string::npos) << o.err;
  EXPECT_EQ(o.err.find('\n', line), o.err.find('\n', reason)) << "the reason is not on the layers' line: " << o.err;
  EXPECT_EQ(o.err.find(why, reason + 3 + why.size()), std::string::npos) << "more than one line: " << o.err;
  const auto j = nlohmann::json::parse(slurp(out));
  EXPECT_TRUE(j.at("context").at("device").is_null());
  // Why there is no GPU, and nothing else (a report prints it as "no GPU: <why>"); each layer left
  // out with its own reason beside it, which starts with the GPU's.
  EXPECT_EQ(j.at("context").at("gpu_unavailable_reason"), why);
  const auto& left_out = j.at("context").at("layers_unavailable");
  for (const char* layer : {"runtime", "graph", "driver", "thrust", "vendor", "cupy", "numba", "pycuda", "cython"}) {
    ASSERT_TRUE(left_out.contains(layer)) << layer << ": " << left_out.dump();
    EXPECT_TRUE(left_out.at(layer).get<std::string>().starts_with(why)) << layer << ": " << left_out.dump();
  }
  // Only the CPU layers ran: cpu and thrust-omp (the thrust layer built for OpenMP).
  std::set<std::string> ran;
  for (const auto& b : j.at("benchmarks")) ran.insert(b.at("layer").get<std::string>());
  EXPECT_EQ(ran, (std::set<std::string>{"cpu", "thrust-omp"}));
  EXPECT_EQ(j.at("benchmarks").size(), ran.size());
}

// `list` gives each GPU layer the GPU's reason first: a Python package that fails to import for want
// of the driver (PyCUDA's ImportError: libcuda.so.1) is not a reason of its own.
TEST_F(Cli, WithoutAGpuListGivesEveryGpuLayerTheGpusReason) {
  const std::string why = lb::gpu_unavailable_reason();
  if (why.empty()) GTEST_SKIP() << "this machine has a GPU";
  const Outcome o = run("list");
  ASSERT_EQ(o.code, 0) << o.err;
  std::istringstream lines(o.out);
  int reasons = 0;
  for (std::string l; std::getline(lines, l);) {
    const auto at = l.find(" why: ");
    if (at == std::string::npos) continue;
    ++reasons;
    EXPECT_TRUE(l.substr(at + 6).starts_with(why)) << l;
    EXPECT_EQ(l.find("ImportError"), std::string::npos) << l;
  }
  EXPECT_GE(reasons, 5) << o.out;
}

// Only layers that cannot run here: a line for each with its reason, the JSON with no cases, exit 0.
TEST_F(Cli, WithOnlyUnavailableLayersEachIsNamedAndTheEmptyJsonWritten) {
  const std::string why = lb::gpu_unavailable_reason();
  if (why.empty()) GTEST_SKIP() << "this machine has a GPU";
  const fs::path out = dir_ / "r.json";
  const Outcome o = run("run --layer driver,runtime --size 4096 --out " + out.string());
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("layerbench: layer driver skipped: " + why + "\n"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("layerbench: layer runtime skipped: " + why + "\n"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("0 cases in"), std::string::npos) << o.out;
  const auto j = nlohmann::json::parse(slurp(out));
  EXPECT_TRUE(j.at("benchmarks").empty());
  EXPECT_EQ(j.at("context").at("gpu_unavailable_reason"), why);
}

TEST_F(Cli, GpuRunRecordsDeviceAndCeiling) {
  if (const auto why = lb::gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const fs::path out = dir_ / "r.json";
  const Outcome o = run("run --layer runtime,graph --workload vector_add,reduce,launch_async --size 2^20 --min-time 0.01 "
                        "--max-time 0.3 --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(slurp(out));
  const auto& device = j.at("context").at("device");
  for (const char* key : {"name", "compute_capability", "sm_count", "sm_clock_mhz", "memory_clock_mhz",
                          "memory_bus_width_bits", "theoretical_bandwidth_gbps", "driver_version",
                          "runtime_version", "context_creation_ms"})
    EXPECT_TRUE(device.contains(key)) << key;
  const double copy = j.at("context").at("ceilings").at("copy_gbps");
  EXPECT_GT(copy, 0.0);
  EXPECT_LT(copy, device.at("theoretical_bandwidth_gbps").get<double>() * 1.05);
  const double sgemm = j.at("context").at("ceilings").at("sgemm_gflops");
  EXPECT_GT(sgemm, 0.0);
  EXPECT_LT(sgemm, device.at("theoretical_fp32_gflops").get<double>() * 1.05);
  const auto& measurement = j.at("context").at("measurement");
  EXPECT_EQ(measurement.at("gpu_cache_mode"), "cold");
  EXPECT_EQ(measurement.at("l2_flush_bytes").get<double>(), 2.0 * device.at("l2_cache_bytes").get<double>());
  EXPECT_TRUE(measurement.at("sm_clock").is_object());
  int launch_cases = 0;
  for (const auto& b : j.at("benchmarks")) {
    SCOPED_TRACE(b.dump());
    EXPECT_EQ(b.at("status"), "ok");
    EXPECT_EQ(b.at("cache_mode"), "cold");
    for (const char* key : {"fraction_of_copy", "fraction_of_theoretical_bandwidth", "fraction_of_cublas",
                            "fraction_of_theoretical_fp32"})
      EXPECT_TRUE(b.at(key).is_number()) << key;
    if (measurement.at("sm_clock").contains("default_mhz")) EXPECT_GT(b.at("mean_sm_clock_mhz").get<double>(), 0.0);
    if (b.at("workload") == "launch_async") {
      ++launch_cases;
      EXPECT_GT(b.at("us_per_launch").get<double>(), 0.0);
    }
  }
  EXPECT_EQ(launch_cases, 2);  // runtime and graph
}

TEST_F(Cli, FailedVerificationIsReportedAndTheRunGoesOn) {
  const fs::path out = dir_ / "r.json";
  const Outcome o = run("run --layer faulty,cpu --workload vector_add,reduce --size 1000 --min-time 0.01 --out " +
                            out.string(),
                        LB_FAULTY_EXE);
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.out.find("verification failed"), std::string::npos) << o.out;
  const auto j = nlohmann::json::parse(slurp(out));
  ASSERT_EQ(j.at("benchmarks").size(), 4u);
  for (const auto& b : j.at("benchmarks")) {
    const bool faulty = b.at("layer") == "faulty";
    EXPECT_EQ(b.at("verified").get<bool>(), !faulty) << b.dump();
    EXPECT_EQ(b.at("status"), faulty ? "failed" : "ok") << b.dump();
    if (faulty) {
      EXPECT_TRUE(b.at("error_occurred").get<bool>());
      EXPECT_NE(b.at("message").get<std::string>().find("verification failed"), std::string::npos);
    }
  }
}

// The Python path on the CPU (NumPy layers of tests/python_layers): through the whole harness --
// allocate, upload, timed runs, download, verify, JSON -- a wrong result fails verification, a
// Python exception fails its case with the exception's last line, and the run goes on.
TEST_F(Cli, PythonVariantsRunThroughTheHarness) {
  const Outcome listed = run("list", LB_FAULTY_EXE);
  ASSERT_EQ(listed.code, 0);
  const auto numpy_line = listed.out.find("py-numpy");
  ASSERT_NE(numpy_line, std::string::npos) << listed.out;
  const std::string numpy_entry = listed.out.substr(numpy_line, listed.out.find('\n', numpy_line) - numpy_line);
  if (numpy_entry.find("unavailable") != std::string::npos)
    GTEST_SKIP() << "Python layers unavailable in this build: " << listed.out.substr(numpy_line, 300);
  EXPECT_NE(listed.out.find("Python layers: embedded Python "), std::string::npos) << listed.out;
  // A layer whose package is missing says which import failed, and why.
  EXPECT_NE(listed.out.find("No module named 'lb_no_such_module'"), std::string::npos) << listed.out;

  const fs::path out = dir_ / "r.json";
  const Outcome o = run("run --layer py-numpy,py-wrong --workload vector_add,reduce --size 1000 --min-time 0.01 --out " +
                            out.string(),
                        LB_FAULTY_EXE);
  EXPECT_EQ(o.code, 1) << o.err << o.out;  // py-wrong's cases fail
  const auto j = nlohmann::json::parse(slurp(out));
  ASSERT_EQ(j.at("benchmarks").size(), 4u);
  for (const auto& b : j.at("benchmarks")) {
    SCOPED_TRACE(b.dump());
    if (b.at("layer") == "py-numpy") {
      EXPECT_EQ(b.at("status"), "ok");
      EXPECT_TRUE(b.at("verified").get<bool>());
      EXPECT_GE(b.at("samples").get<int>(), 10);
      if (b.at("workload") == "vector_add")  // a cost the Python variant reported from allocate()
        EXPECT_EQ(b.at("one_time_costs").at(0).at("what"), "test cost: allocate");
    } else if (b.at("workload") == "vector_add") {
      EXPECT_EQ(b.at("status"), "failed");
      EXPECT_NE(b.at("message").get<std::string>().find("verification failed: element 999"), std::string::npos);
    } else {
      EXPECT_EQ(b.at("status"), "failed");
      EXPECT_NE(b.at("message").get<std::string>().find("run(): ValueError: py-wrong cannot reduce"), std::string::npos);
    }
  }
  const auto& layer = j.at("context").at("layers").at("py-numpy");
  EXPECT_EQ(layer.at("on_gpu"), false);
  EXPECT_TRUE(layer.at("python").at("executable").is_string());
  bool import_cost = false;
  for (const auto& cost : layer.at("one_time_costs")) import_cost |= cost.at("what") == "import numpy, once per process";
  EXPECT_TRUE(import_cost) << layer.dump();
}

// A library's performance warning (Numba's "Grid size 1 will likely result in GPU under-utilization
// ...", at every small launch; here py-numpy's saxpy stands in) is kept in the notes of each case
// that raised it, once per case, and not printed; a warning of another kind still reaches the
// console.
TEST_F(Cli, PythonPerformanceWarningsAreTheCasesNotesNotConsoleLines) {
  const Outcome listed = run("list", LB_FAULTY_EXE);
  ASSERT_EQ(listed.code, 0);
  const auto numpy_line = listed.out.find("py-numpy");
  ASSERT_NE(numpy_line, std::string::npos) << listed.out;
  if (listed.out.substr(numpy_line, listed.out.find('\n', numpy_line) - numpy_line).find("unavailable") != std::string::npos)
    GTEST_SKIP() << "Python layers unavailable in this build: " << listed.out.substr(numpy_line, 300);
  const fs::path out = dir_ / "r.json";
  const Outcome o = run("run --layer py-numpy --workload saxpy --size 1000,2000 --min-time 0.01 --out " + out.string(),
                        LB_FAULTY_EXE);
  ASSERT_EQ(o.code, 0) << o.err << o.out;
  EXPECT_EQ((o.out + o.err).find("TestPerformanceWarning"), std::string::npos) << o.err << o.out;
  EXPECT_NE(o.err.find("RuntimeWarning: py-numpy saxpy: a warning that is no performance advice"), std::string::npos)
      << o.err;
  const auto j = nlohmann::json::parse(slurp(out));
  ASSERT_EQ(j.at("benchmarks").size(), 2u);
  for (const auto& b : j.at("benchmarks")) {
    SCOPED_TRACE(b.dump());
    EXPECT_EQ(b.at("status"), "ok");
    EXPECT_EQ(b.at("notes"), nlohmann::json({"TestPerformanceWarning: saxpy this small leaves the machine idle"}));
  }
}

}  // namespace

