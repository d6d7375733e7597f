// `lab check --sanitize` (compute-sanitizer memcheck) and `lab profile` (Nsight Compute): the log
// and CSV parsers on recorded output, the verdicts, finding the tools, and the CLI's wiring with
// stand-in tools and a stand-in child (CPU); the real tools on a GPU (skipped, with the reason,
// without a GPU or without the tool).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/gpu.h"
#include "lab/commands/profile.h"
#include "lab/commands/sanitize.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;

const fs::path kSolution = solution_file("01-vector-add", "vector_add.cu");
const fs::path kNoBoundsCheck = planted_file("01-vector-add", "no_bounds_check.cu");

void write_script(const fs::path& p, const std::string& text) {
  write(p, text);
  fs::permissions(p, fs::perms::owner_all, fs::perm_options::add);
}

// --- recorded compute-sanitizer memcheck logs ---------------------------------------------------

// A kernel reading past its inputs (lab 1 without the bounds check, n = 1), CUDA 12.x wording,
// compiled with line info; then the launch failure the error causes.
const char* kOutOfBoundsRead = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at lab_vector_add+0x90 in /home/student/lab1/no_bounds_check.cu:5
=========     by thread (1,0,0) in block (0,0,0)
=========     Access at 0x7f71b9e00004 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f71b9e00000 of size 4 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: cuLaunchKernel [0x2cd9b7] in libcuda.so.1
=========         Host Frame: lb::lab::StudentKernel::run(CUstream_st*) [0x1a2b3c] in layerbench
=========
========= Invalid __global__ read of size 4 bytes
=========     at lab_vector_add+0x90 in /home/student/lab1/no_bounds_check.cu:5
=========     by thread (2,0,0) in block (0,0,0)
=========     Access at 0x7f71b9e00008 is out of bounds
=========     and is 5 bytes after the nearest allocation at 0x7f71b9e00000 of size 4 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: cuLaunchKernel [0x2cd9b7] in libcuda.so.1
=========
========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to "unspecified launch failure" on CUDA API call to cuStreamSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========         Host Frame: cuStreamSynchronize [0x2a1c4f] in libcuda.so.1
=========
========= Invalid __global__ read of size 4 bytes
=========     at lab_vector_add+0x90 in /home/student/lab1/no_bounds_check.cu:5
=========     by thread (3,0,0) in block (0,0,0)
=========     Access at 0x7f71b9e0000c is out of bounds
=========     and is 9 bytes after the nearest allocation at 0x7f71b9e00000 of size 4 bytes
=========
========= ERROR SUMMARY: 255 errors
)";

// An out-of-bounds write, older wording ("Address ... is out of bounds").
const char* kOutOfBoundsWrite = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at lab_vector_add+0x70 in vector_add.cu:9
=========     by thread (255,0,0) in block (3906,0,0)
=========     Address 0x7f3a40f42400 is out of bounds
=========     and is 0 bytes after the nearest allocation at 0x7f3a40000000 of size 4000012 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========     Host Frame: [0x2774ec]
=========                in /usr/lib/x86_64-linux-gnu/libcuda.so.1
=========
========= ERROR SUMMARY: 1 error
)";

const char* kMisalignedRead = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at lab_saxpy+0x50 in saxpy.cu:7
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0000000002 is misaligned
=========     and is inside the nearest allocation at 0x7f0000000000 of size 4000 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
========= ERROR SUMMARY: 1 error
)";

const char* kClean = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n";

TEST(Sanitizer, OutOfBoundsReadsAreCountedAndTheFirstShownWithFileAndLine) {
  const SanitizerReport r = parse_sanitizer_log(kOutOfBoundsRead);
  EXPECT_EQ(r.errors, 255);
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(r.findings[0].headline, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(r.findings[0].where, "lab_vector_add+0x90 in /home/student/lab1/no_bounds_check.cu:5");
  EXPECT_EQ(r.findings[0].who, "thread (1,0,0) in block (0,0,0)");
  EXPECT_EQ(r.findings[0].detail,
            "Access at 0x7f71b9e00004 is out of bounds and is 1 bytes after the nearest allocation at "
            "0x7f71b9e00000 of size 4 bytes");
  EXPECT_EQ(r.findings[2].who, "thread (3,0,0) in block (0,0,0)");  // memory errors before the API error
  EXPECT_TRUE(r.findings[3].headline.rfind("Program hit CUDA_ERROR_LAUNCH_FAILED", 0) == 0) << r.findings[3].headline;

  const std::vector<std::string> lines = sanitizer_lines(r, 2);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "compute-sanitizer memcheck: 255 errors (the first 2 below)");
  EXPECT_EQ(lines[1],
            "  Invalid __global__ read of size 4 bytes at lab_vector_add+0x90 in "
            "/home/student/lab1/no_bounds_check.cu:5");
  EXPECT_EQ(lines[2],
            "    by thread (1,0,0) in block (0,0,0): Access at 0x7f71b9e00004 is out of bounds and is 1 bytes after "
            "the nearest allocation at 0x7f71b9e00000 of size 4 bytes");
}

TEST(Sanitizer, OutOfBoundsWriteOlderWording) {
  const SanitizerReport r = parse_sanitizer_log(kOutOfBoundsWrite);
  EXPECT_EQ(r.errors, 1);
  ASSERT_EQ(r.findings.size(), 1u);
  const std::vector<std::string> lines = sanitizer_lines(r);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "compute-sanitizer memcheck: 1 error");
  EXPECT_EQ(lines[1], "  Invalid __global__ write of size 4 bytes at lab_vector_add+0x70 in vector_add.cu:9");
  EXPECT_EQ(lines[2],
            "    by thread (255,0,0) in block (3906,0,0): Address 0x7f3a40f42400 is out of bounds and is 0 bytes "
            "after the nearest allocation at 0x7f3a40000000 of size 4000012 bytes");
}

TEST(Sanitizer, MisalignedRead) {
  const SanitizerReport r = parse_sanitizer_log(kMisalignedRead);
  EXPECT_EQ(r.errors, 1);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].where, "lab_saxpy+0x50 in saxpy.cu:7");
  EXPECT_TRUE(has(r.findings[0].detail, "is misaligned and is inside the nearest allocation")) << r.findings[0].detail;
}

TEST(Sanitizer, CleanRunSaysZeroErrors) {
  const SanitizerReport r = parse_sanitizer_log(kClean);
  EXPECT_EQ(r.errors, 0);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(sanitizer_lines(r), std::vector<std::string>{"compute-sanitizer memcheck: 0 errors"});
}

TEST(Sanitizer, ALogWithoutASummaryMeansTheToolDidNotFinish) {
  const SanitizerReport r = parse_sanitizer_log(
      "========= COMPUTE-SANITIZER\n========= Error: Target application terminated before first instrumented API "
      "call\n");
  EXPECT_FALSE(r.finished());
  EXPECT_EQ(sanitizer_lines(r).at(0),
            "compute-sanitizer memcheck did not finish: Error: Target application terminated before first "
            "instrumented API call");
  EXPECT_FALSE(parse_sanitizer_log("").finished());
}

TEST(Sanitizer, PrefixSendsTheReportToALogFile) {
  const std::vector<std::string> p = sanitizer_prefix("/opt/cuda/bin/compute-sanitizer", "/tmp/x.log");
  ASSERT_GE(p.size(), 5u);
  EXPECT_EQ(p[0], "/opt/cuda/bin/compute-sanitizer");
  const auto tool = std::find(p.begin(), p.end(), "--tool");
  ASSERT_NE(tool, p.end());
  EXPECT_EQ(*(tool + 1), "memcheck");
  const auto log = std::find(p.begin(), p.end(), "--log-file");
  ASSERT_NE(log, p.end());
  EXPECT_EQ(*(log + 1), "/tmp/x.log");
  EXPECT_EQ(sanitize_time_limit(10), 100);
  EXPECT_EQ(sanitize_time_limit(1), kSanitizeMinLimitS);
}

// --- finding the tools ------------------------------------------------------------------------

class LabTools : public LabCliTest {
 protected:
  void SetUp() override {
    LabCliTest::SetUp();
    fs::create_directories(dir_ / "empty");
  }
};

TEST_F(LabTools, FindsAToolOnlyWhereItIsExecutable) {
  const ToolLookup none = find_cuda_tool("compute-sanitizer", {dir_ / "empty", dir_ / "missing"});
  EXPECT_FALSE(none.found());
  EXPECT_TRUE(has(none.why_not, "compute-sanitizer is not installed")) << none.why_not;
  write(dir_ / "plain" / "ncu", "not executable\n");
  EXPECT_FALSE(find_cuda_tool("ncu", {dir_ / "plain"}).found());
  write_script(dir_ / "bin" / "ncu", "#!/bin/sh\n");
  const ToolLookup found = find_cuda_tool("ncu", {dir_ / "empty", dir_ / "plain", dir_ / "bin"});
  EXPECT_EQ(found.path, dir_ / "bin" / "ncu");
}

// Without the tool: one line saying so, exit 3. (The search ends in /usr/local/cuda/bin, which
// the environment cannot hide: where the tool is installed there, the test has nothing to show.)
TEST_F(LabTools, SanitizeWithoutComputeSanitizerSaysSoAndExits3) {
  if (fs::exists("/usr/local/cuda/bin/compute-sanitizer"))
    GTEST_SKIP() << "compute-sanitizer is installed in /usr/local/cuda/bin: it cannot be hidden from the search";
  const std::string env = "PATH=" + (dir_ / "empty").string() + " CUDA_HOME=" + (dir_ / "empty").string();
  const Outcome o = run("lab check --sanitize 1 " + kSolution.string(), env);
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "cannot run --sanitize here: compute-sanitizer is not installed")) << o.out;
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << o.out;
}

TEST_F(LabTools, ProfileWithoutNcuSaysSoAndExits3) {
  if (fs::exists("/usr/local/cuda/bin/ncu"))
    GTEST_SKIP() << "ncu is installed in /usr/local/cuda/bin: it cannot be hidden from the search";
  const std::string env = "PATH=" + (dir_ / "empty").string() + " CUDA_HOME=" + (dir_ / "empty").string();
  const Outcome o = run("lab profile 1 " + kSolution.string(), env);
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "cannot profile here: ncu is not installed")) << o.out;
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << o.out;
}

TEST_F(LabTools, ProfileOfAMissingFileIsBadInput) {
  const Outcome o = run("lab profile 1 " + (dir_ / "nope.cu").string());
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_TRUE(has(o.err, "no such file")) << o.err;
}

// The wiring, on the CPU: a stand-in compute-sanitizer (writes a recorded log where --log-file
// says, then runs the rest of its argv) around a stand-in child (LAYERBENCH_LAB_RUNNER) that
// reports every size of lab 1 passed, as a kernel whose stray reads do not change its output would.
TEST_F(LabTools, SanitizeFindingsFollowTheCheckLinesAndFailTheCheck) {
  write(dir_ / "sample.log", kOutOfBoundsRead);
  write_script(dir_ / "bin" / "compute-sanitizer",
               "#!/bin/sh\n"
               "while [ $# -gt 0 ]; do case \"$1\" in\n"
               "  --log-file) log=\"$2\"; shift 2;;\n"
               "  --tool|--print-limit|--padding|--report-api-errors) shift 2;;\n"
               "  *) break;;\n"
               "esac; done\n"
               "cp " + (dir_ / "sample.log").string() + " \"$log\"\n"
               "exec \"$@\"\n");
  write_script(dir_ / "child.sh",
               "#!/bin/sh\n"
               "exec 1>&3\n"
               "echo \"$@\" > " + (dir_ / "child_args.txt").string() + "\n"
               "for s in 1 127 255 256 257 1000003 2^24; do echo \"{\\\"size\\\": \\\"$s\\\", \\\"passed\\\": true}\"; done\n");
  const std::string env = "PATH=" + (dir_ / "bin").string() + ":/usr/bin:/bin LAYERBENCH_LAB_RUNNER=" +
                          (dir_ / "child.sh").string();
  const Outcome o = run("lab check --sanitize 1 " + kSolution.string(), env);
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "PASS: all 7 sizes passed\ncompute-sanitizer memcheck: 255 errors (the first 3 below)\n"))
      << o.out;
  EXPECT_TRUE(has(o.out, "  Invalid __global__ read of size 4 bytes at lab_vector_add+0x90 in "
                         "/home/student/lab1/no_bounds_check.cu:5\n"))
      << o.out;
  // Under the sanitizer the child compiles without optimisation and allocates exact buffers.
  EXPECT_TRUE(has(slurp(dir_ / "child_args.txt"), "--mode check --events-fd 3 --line-info --exact-buffers"))
      << slurp(dir_ / "child_args.txt");

  write(dir_ / "sample.log", kClean);
  const Outcome clean = run("lab check --sanitize 1 " + kSolution.string(), env);
  EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
  EXPECT_TRUE(has(clean.out, "PASS: all 7 sizes passed\ncompute-sanitizer memcheck: 0 errors\n")) << clean.out;
}

// --- recorded Nsight Compute CSV ----------------------------------------------------------------

// `ncu --csv --page raw` (wide: a header, a units row, one row per launch) for lab 1's solution at
// 2^26 on an H100: DRAM at 92% of peak.
const char* kMemoryBoundRaw =
    R"csv(==PROF== Connected to process 51234 (/work/build/layerbench)
==PROF== Profiling "lab_vector_add" - 0: 0%....50%....100% - 9 passes
==PROF== Disconnected from process 51234
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes.sum.per_second","gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","launch__block_size","launch__grid_size","launch__occupancy_limit_blocks","launch__occupancy_limit_registers","launch__occupancy_limit_shared_mem","launch__occupancy_limit_warps","launch__registers_per_thread","launch__waves_per_multiprocessor","sm__maximum_warps_per_active_cycle_pct","sm__throughput.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active"
"","","","","","","","","","","","Tbyte/second","%","%","usecond","","","block","block","block","block","register/thread","","%","%","%"
"0","51234","layerbench","gpu01","lab_vector_add","1","13","(256, 1, 1)","(262144, 1, 1)","0","9.0","3.02","91.84","91.84","266.62","256","262,144","32","10","32","8","16","1,213.63","100","17.25","83.41"
)csv";

// The same columns for a grid-stride kernel launched with one block of 256 threads and 64
// registers a thread: nothing is busy.
const char* kLatencyBoundRaw =
    R"csv("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes.sum.per_second","gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","launch__block_size","launch__grid_size","launch__occupancy_limit_blocks","launch__occupancy_limit_registers","launch__occupancy_limit_shared_mem","launch__occupancy_limit_warps","launch__registers_per_thread","launch__waves_per_multiprocessor","sm__maximum_warps_per_active_cycle_pct","sm__throughput.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active"
"","","","","","","","","","","","Gbyte/second","%","%","msecond","","","block","block","block","block","register/thread","","%","%","%"
"0","777","layerbench","gpu01","lab_saxpy","1","13","(256, 1, 1)","(1, 1, 1)","0","9.0","24.5","0.92","0.81","32.87","256","1","32","4","32","8","64","0.00","50","0.48","12.43"
)csv";

// `ncu --csv --page details` (one row per metric, display names) for a compute-heavy kernel.
const char* kComputeBoundDetails =
    R"csv("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Frequency","Ghz","2.62"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","GPU Speed Of Light Throughput","Memory Throughput","%","41.20"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Throughput","%","8.31"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","msecond","6.71"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","GPU Speed Of Light Throughput","Compute (SM) Throughput","%","87.55"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","Memory Workload Analysis","Memory Throughput","Gbyte/second","278.10"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","40"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","Occupancy","Block Limit Registers","block","6"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","Occupancy","Block Limit Shared Mem","block","8"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","Occupancy","Block Limit Warps","block","8"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","Occupancy","Theoretical Occupancy","%","75"
"0","99","layerbench","gpu01","lab_matmul","1","13","(16, 16, 1)","(256, 256, 1)","0","9.0","Occupancy","Achieved Occupancy","%","71.9"
)csv";

const char* kNoPermission =
    "==PROF== Connected to process 4242 (/work/build/layerbench)\n"
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on "
    "the target device 0. For instructions on enabling permissions and to get more information see "
    "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
    "==PROF== Disconnected from process 4242\n";

// Recorded: `ncu --csv --page raw` (2025 release) on an H100 80GB HBM3, lab 01's solution at 2^26,
// 2026-11-22; the columns the summary reads, of 567. Its units are the short ones: ns, byte/s.
const char* kRecordedH100Raw = R"csv("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes.sum.per_second","gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","launch__block_size","launch__grid_size","launch__occupancy_limit_blocks","launch__occupancy_limit_registers","launch__occupancy_limit_shared_mem","launch__occupancy_limit_warps","launch__registers_per_thread","launch__waves_per_multiprocessor","sm__maximum_warps_per_active_cycle_pct","sm__throughput.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active"
"","","","","","","","","","","","byte/s","%","%","ns","","","block","block","block","block","register/thread","","%","%","%"
"0","1926","layerbench","127.0.0.1","lab_vector_add","1","13","(256, 1, 1)","(262144, 1, 1)","0","9.0","2,723,185,274,460.39","81.23","81.23","292,064","256","262,144","32","16","32","8","16","248.24","100","23.16","75.88"
)csv";

TEST(Profile, RecordedOnAnH100) {
  const ProfileSummary s = parse_ncu_csv(kRecordedH100Raw, "lab_vector_add");
  ASSERT_TRUE(s.found);
  EXPECT_NEAR(s.duration_ns, 292064, 1);
  EXPECT_NEAR(s.dram_bytes_per_s, 2.72318527446039e12, 1e6);
  EXPECT_NEAR(s.dram_pct, 81.23, 1e-9);
}

TEST(Profile, MemoryBoundRawCsv) {
  const ProfileSummary s = parse_ncu_csv(kMemoryBoundRaw, "lab_vector_add");
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.kernel, "lab_vector_add");
  EXPECT_EQ(s.grid, "(262144, 1, 1)");
  EXPECT_EQ(s.block, "(256, 1, 1)");
  EXPECT_NEAR(s.duration_ns, 266620, 1e-6);
  EXPECT_NEAR(s.dram_bytes_per_s, 3.02e12, 1);
  EXPECT_DOUBLE_EQ(s.dram_pct, 91.84);
  EXPECT_DOUBLE_EQ(s.sm_pct, 17.25);
  EXPECT_DOUBLE_EQ(s.achieved_occupancy_pct, 83.41);
  EXPECT_DOUBLE_EQ(s.theoretical_occupancy_pct, 100);
  EXPECT_DOUBLE_EQ(s.registers_per_thread, 16);
  EXPECT_DOUBLE_EQ(s.waves_per_sm, 1213.63);  // "1,213.63"
  EXPECT_EQ(occupancy_limiter(s), "");
  EXPECT_EQ(profile_verdict(s),
            "memory-bound: DRAM at 92% of peak — this kernel is as fast as the memory allows");

  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_profile_summary(s, out);
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  EXPECT_TRUE(has(printed, "  duration:          266.6 us\n")) << printed;
  EXPECT_TRUE(has(printed, "  DRAM throughput:   3020.0 GB/s, 91.8% of peak\n")) << printed;
  EXPECT_TRUE(has(printed, "  compute (SM):      17.2% of peak\n")) << printed;
  EXPECT_TRUE(has(printed, "  occupancy:         83.4% achieved of 100.0% theoretical\n")) << printed;
  EXPECT_TRUE(has(printed, "  registers:         16 per thread\n")) << printed;
  EXPECT_TRUE(has(printed, "  launch:            grid (262144, 1, 1), block (256, 1, 1), 1213.63 waves\n")) << printed;
  EXPECT_TRUE(has(printed, "  verdict: memory-bound")) << printed;
}

TEST(Profile, LatencyBoundRawCsvNamesTheOccupancyLimiter) {
  const ProfileSummary s = parse_ncu_csv(kLatencyBoundRaw, "lab_saxpy");
  ASSERT_TRUE(s.found);
  EXPECT_NEAR(s.duration_ns, 32.87e6, 1e-3);
  EXPECT_NEAR(s.dram_bytes_per_s, 24.5e9, 1e-3);
  EXPECT_EQ(occupancy_limiter(s), "registers per thread (4 blocks of this size fit on an SM)");
  EXPECT_EQ(profile_verdict(s),
            "neither memory (1% of peak) nor compute (0%) is busy: latency-bound (too few warps in flight or a "
            "serial dependency); the grid fills only 0% of one wave of the GPU");
  EXPECT_FALSE(parse_ncu_csv(kLatencyBoundRaw, "lab_vector_add").found);  // another kernel's launch
}

TEST(Profile, ComputeBoundDetailsCsv) {
  const ProfileSummary s = parse_ncu_csv(kComputeBoundDetails, "lab_matmul");
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.block, "(16, 16, 1)");
  EXPECT_NEAR(s.duration_ns, 6.71e6, 1e-3);
  EXPECT_DOUBLE_EQ(s.memory_pct, 41.2);
  EXPECT_NEAR(s.dram_bytes_per_s, 278.1e9, 1e-3);  // Memory Workload Analysis's "Memory Throughput"
  EXPECT_DOUBLE_EQ(s.registers_per_thread, 40);
  EXPECT_EQ(occupancy_limiter(s), "registers per thread (6 blocks of this size fit on an SM)");
  EXPECT_EQ(profile_verdict(s),
            "compute-bound: SM at 88% of peak — fewer or cheaper instructions per element are what would make it "
            "faster");
}

TEST(Profile, NoCsvNoLaunch) {
  EXPECT_FALSE(parse_ncu_csv("", "k").found);
  EXPECT_FALSE(parse_ncu_csv(kNoPermission, "lab_vector_add").found);
  EXPECT_FALSE(parse_ncu_csv("==WARNING== No kernels were profiled.\n", "lab_vector_add").found);
}

TEST(Profile, PermissionFailureIsExplainedWithTheFix) {
  EXPECT_TRUE(ncu_lacks_permission(kNoPermission));
  const std::string why = ncu_failure(kNoPermission);
  EXPECT_TRUE(has(why, "ERR_NVGPUCTRPERM")) << why;
  EXPECT_TRUE(has(why, "NVreg_RestrictProfilingToAdminUsers=0")) << why;
  EXPECT_TRUE(has(why, "root")) << why;
  EXPECT_EQ(ncu_failure("==PROF== Disconnected from process 1\n"), "");
  EXPECT_EQ(ncu_failure("==ERROR== Failed to profile \"k\"\n"), "==ERROR== Failed to profile \"k\"");
}

TEST(Profile, PrefixProfilesOneLaunchOfTheKernelIntoALogFile) {
  const std::vector<std::string> p = ncu_prefix("/usr/local/cuda/bin/ncu", "/tmp/n.log", "lab_vector_add");
  const auto after = [&](const std::string& option) {
    const auto at = std::find(p.begin(), p.end(), option);
    return at == p.end() || at + 1 == p.end() ? std::string("(absent)") : *(at + 1);
  };
  EXPECT_EQ(after("--kernel-name"), "regex:lab_vector_add");
  EXPECT_EQ(after("--launch-count"), "1");
  EXPECT_EQ(after("--page"), "raw");
  EXPECT_EQ(after("--log-file"), "/tmp/n.log");
  EXPECT_NE(std::find(p.begin(), p.end(), "--csv"), p.end());
}

// The wiring of `lab profile` on the CPU: a stand-in ncu writes the recorded CSV where --log-file
// says and runs the stand-in child, which reports its one verified run.
TEST_F(LabTools, ProfilePrintsTheSummaryFromNcusCsv) {
  write(dir_ / "sample.csv", kMemoryBoundRaw);
  write_script(dir_ / "bin" / "ncu",
               "#!/bin/sh\n"
               "while [ $# -gt 0 ]; do case \"$1\" in\n"
               "  --csv) shift;;\n"
               "  --log-file) log=\"$2\"; shift 2;;\n"
               "  --*) shift 2;;\n"
               "  *) break;;\n"
               "esac; done\n"
               "cp " + (dir_ / "sample.csv").string() + " \"$log\"\n"
               "exec \"$@\"\n");
  write_script(dir_ / "child.sh",
               "#!/bin/sh\n"
               "exec 1>&3\n"
               "echo \"$@\" > " + (dir_ / "child_args.txt").string() + "\n"
               "echo '{\"profiled\": \"67108864\", \"passed\": true}'\n");
  const std::string env = "PATH=" + (dir_ / "bin").string() + ":/usr/bin:/bin LAYERBENCH_LAB_RUNNER=" +
                          (dir_ / "child.sh").string();
  const Outcome o = run("lab profile 1 " + kSolution.string(), env);
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "  DRAM throughput:   3020.0 GB/s, 91.8% of peak\n")) << o.out;
  EXPECT_TRUE(has(o.out, "  occupancy:         83.4% achieved of 100.0% theoretical\n")) << o.out;
  EXPECT_TRUE(has(o.out, "  verdict: memory-bound: DRAM at 92% of peak")) << o.out;
  EXPECT_TRUE(has(slurp(dir_ / "child_args.txt"), "--mode profile --events-fd 3 --line-info")) << slurp(dir_ / "child_args.txt");

  write(dir_ / "sample.csv", kNoPermission);
  const Outcome denied = run("lab profile 1 " + kSolution.string(), env);
  EXPECT_EQ(denied.code, 3) << denied.out << denied.err;
  EXPECT_TRUE(has(denied.out, "cannot profile here: ncu has no permission")) << denied.out;

  write_script(dir_ / "child.sh",
               "#!/bin/sh\necho >&3 '{\"profiled\": \"67108864\", \"passed\": false, \"feedback\": \"element 3 is 0\"}'\n");
  write(dir_ / "sample.csv", kMemoryBoundRaw);
  const Outcome wrong = run("lab profile 1 " + kSolution.string(), env);
  EXPECT_EQ(wrong.code, 1) << wrong.out << wrong.err;
  EXPECT_TRUE(has(wrong.out, "FAIL: wrong result at n = 67108864: element 3 is 0")) << wrong.out;
}

// --- on a GPU, with the tools installed -----------------------------------------------------------

std::string why_no_tool(const std::string& tool) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) return "no GPU: " + why;
  if (const ToolLookup found = find_cuda_tool(tool); !found.found()) return found.why_not;
  return {};
}

// Lab 1 without the bounds check, n = 1: the last block's threads read a[1..255] and b[1..255]
// past their 4-byte allocations. (Their stores land in the runner's guard zone after c, inside
// c's allocation: the check's own guard reports those, memcheck does not.)
TEST_F(LabTools, GpuSanitizeFindsTheMissingBoundsCheckWithFileAndLine) {
  if (const std::string why = why_no_tool("compute-sanitizer"); !why.empty()) GTEST_SKIP() << why;
  const Outcome o = run("lab check --sanitize 1 " + kNoBoundsCheck.string());
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "compute-sanitizer memcheck: ")) << o.out;
  EXPECT_TRUE(has(o.out, "  Invalid __global__ ")) << o.out;
  EXPECT_TRUE(has(o.out, "no_bounds_check.cu:5")) << o.out;  // c[i] = a[i] + b[i];
}

TEST_F(LabTools, GpuSanitizeOfTheSolutionFindsNothing) {
  if (const std::string why = why_no_tool("compute-sanitizer"); !why.empty()) GTEST_SKIP() << why;
  const Outcome o = run("lab check --sanitize 1 " + kSolution.string());
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "PASS: all 7 sizes passed\ncompute-sanitizer memcheck: 0 errors\n")) << o.out;
}

// Where the device does not let this user read its performance counters, `lab profile` must say
// so (exit 3, ERR_NVGPUCTRPERM and the fix): the test accepts that outcome explicitly.
TEST_F(LabTools, GpuProfileOfTheSolutionShowsThroughputAndOccupancy) {
  if (const std::string why = why_no_tool("ncu"); !why.empty()) GTEST_SKIP() << why;
  const Outcome o = run("lab profile 1 " + kSolution.string());
  if (o.code == 3 && has(o.out, "ERR_NVGPUCTRPERM")) {
    EXPECT_TRUE(has(o.out, "NVreg_RestrictProfilingToAdminUsers=0")) << o.out;
    GTEST_SKIP() << "accepted: no permission for the GPU's performance counters here: " << o.out;
  }
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "  DRAM throughput:   ")) << o.out;
  EXPECT_TRUE(has(o.out, "  occupancy:         ")) << o.out;
  EXPECT_TRUE(has(o.out, "  verdict: ")) << o.out;
}

}  // namespace
