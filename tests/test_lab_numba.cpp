// The numba runner's compile process (lab/runners/compile_process.h, lab/runners/numba/): where a
// Numba lab file is imported, and what the child takes back from it. On the CPU: the process's
// folder, environment, descriptors, limits and output cap (with /bin/sh standing in for Python);
// the result's checks (its size, its JSON, its entry and the entry's parameters); the parameters a
// Numba kernel takes for a lab's arguments. Where the chosen Python has Numba (no GPU needed:
// Numba compiles to PTX for a compute capability it is given): the solution compiled, and the
// planted file whose signature string runs host code, which hands back no kernel. The planted
// files through `lab check` and `lab grade` on a GPU are tests/test_lab.cpp's.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/gpu.h"
#include "common/python_interpreter.h"
#include "lab/child/child_process.h"
#include "lab/child/student_program.h"
#include "lab/runners/compile_process.h"
#include "lab/runners/numba/numba_kernel.h"
#include "lab/runners/nvrtc/lab_kernel.h"
#include "lab/spec/lab_spec.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;

CompileProcessOutcome shell(const std::string& script, const WorkingFolder& folder, ProcessLimits limits = {}) {
  return run_compile_process({"/bin/sh", "-c", script}, allowed_environment(), folder, limits);
}

// --- the compile process (CPU) -------------------------------------------------------------------

TEST(CompileProcess, RunsInItsOwnFolderWithOnlyTheAllowedEnvironment) {
  setenv("LB_TEST_GRADE_SECRET", "0123456789", 1);
  const WorkingFolder folder("test");
  const CompileProcessOutcome done = shell("pwd; echo HOME=$HOME; env; read line; echo read=$?", folder);
  unsetenv("LB_TEST_GRADE_SECRET");
  ASSERT_TRUE(done.exited) << done.how_it_ended();
  EXPECT_EQ(done.exit_code, 0) << done.output;
  EXPECT_TRUE(has(done.output, folder.path().string() + "\n")) << done.output;  // its working folder
  EXPECT_TRUE(has(done.output, "HOME=" + folder.path().string())) << done.output;
  EXPECT_TRUE(has(done.output, "PYTHONPATH=" + python_package_root())) << done.output;
  EXPECT_FALSE(has(done.output, "LB_TEST_GRADE_SECRET")) << done.output;  // not passed on
  EXPECT_FALSE(has(done.output, "0123456789")) << done.output;
  EXPECT_TRUE(has(done.output, "read=1")) << done.output;  // standard input: /dev/null, at its end
}

TEST(CompileProcess, GetsNoDescriptorOfItsParentButItsStandardStreams) {
  int channel[2];
  ASSERT_EQ(pipe(channel), 0);  // not close-on-exec: a descriptor a careless start would pass on
  const WorkingFolder folder("test");
  const CompileProcessOutcome done =
      shell("ls /proc/self/fd; echo forged >&" + std::to_string(channel[1]) + " && echo wrote", folder);
  close(channel[1]);
  char buffer[64];
  EXPECT_EQ(read(channel[0], buffer, sizeof buffer), 0) << "the process wrote on the parent's pipe";
  close(channel[0]);
  EXPECT_FALSE(has(done.output, "wrote")) << done.output;
  // ls's own listing: 0, 1, 2 and the descriptor it reads the folder with.
  EXPECT_FALSE(has(done.output, "\n" + std::to_string(channel[1]) + "\n")) << done.output;
}

TEST(CompileProcess, HasNoCoreFilesAndItsAddressSpaceAndFileSizeLimited) {
  const WorkingFolder folder("test");
  const CompileProcessOutcome done = shell("ulimit -c; ulimit -v; ulimit -f; ulimit -t", folder,
                                           {.cpu_s = 7, .address_space = 2ull << 30, .file_bytes = 1 << 20});
  EXPECT_EQ(done.output, "0\n2097152\n2048\n7\n");  // KiB, 512-byte blocks, seconds
}

TEST(CompileProcess, IsStoppedAtItsWallClockLimitWithWhatItStarted) {
  const WorkingFolder folder("test");
  const auto t0 = std::chrono::steady_clock::now();
  const CompileProcessOutcome done = shell("sleep 30 & echo $!; wait", folder, {.wall_s = 0.5});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5);
  EXPECT_TRUE(done.timed_out);
  EXPECT_TRUE(has(done.how_it_ended(), "stopped after")) << done.how_it_ended();
  const pid_t sleeper = std::atoi(done.output.c_str());
  ASSERT_GT(sleeper, 0) << done.output;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(kill(sleeper, 0) != 0 || fs::exists("/proc/" + std::to_string(sleeper)) == false ||
              has(slurp("/proc/" + std::to_string(sleeper) + "/stat"), " Z "))
      << "the process's group outlived it";
}

TEST(CompileProcess, WhatItLeavesRunningIsKilledWhenItEnds) {
  const WorkingFolder folder("test");
  const CompileProcessOutcome done = shell("sleep 30 >/dev/null 2>&1 & echo $!", folder);
  ASSERT_TRUE(done.exited) << done.how_it_ended();
  const pid_t sleeper = std::atoi(done.output.c_str());
  ASSERT_GT(sleeper, 0) << done.output;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(kill(sleeper, 0) != 0 || has(slurp("/proc/" + std::to_string(sleeper) + "/stat"), " Z "))
      << "sleep " << sleeper << " still runs";
}

// A student's daemon: a double fork whose sleep runs in a session (and group) of its own, its
// parent gone before the compile process ends. Neither the group kill nor PDEATHSIG reaches it;
// the subreaper does (compile_process.h).
TEST(CompileProcess, ADaemonItLeavesOutsideItsGroupIsKilledWhenItEnds) {
  const WorkingFolder folder("test");
  const CompileProcessOutcome done = shell(
      "( setsid sh -c 'sleep 30 >/dev/null 2>&1 & echo $! > daemon' & ); "
      "while [ ! -s daemon ]; do sleep 0.05; done; cat daemon",
      folder, {.wall_s = 20});
  ASSERT_TRUE(done.exited) << done.how_it_ended() << done.output;
  const pid_t daemon = std::atoi(done.output.c_str());
  ASSERT_GT(daemon, 0) << done.output;
  const bool gone = kill(daemon, 0) != 0;  // reaped as well as killed: not even a zombie is left
  if (!gone) kill(daemon, SIGKILL);        // not left behind by a failing test
  EXPECT_TRUE(gone) << "sleep " << daemon << " outlived the compile process";
}

// From a compile process, tries each of `holders` (process ids): reading its /proc environ,
// opening its memory; then what the process holds of capabilities. Its output to `probed`; true
// when the probe ran to its end.
bool probe_key_holders(const std::string& holders, const fs::path& probed) {
  const WorkingFolder folder("test");
  const CompileProcessOutcome done = shell(
      "for p in " + holders + "; do "
      "cat /proc/$p/environ >/dev/null 2>&1 && echo \"read the environ of $p\"; "
      "(exec 3</proc/$p/mem) 2>/dev/null && echo \"opened the memory of $p\"; done; "
      "grep -E '^(CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status",
      folder);
  std::ofstream(probed) << done.output;
  return done.exited && done.exit_code == 0;
}

// The grade's secret and keys are out of the compile process's reach (lab/child/key_holder.h): in
// a process of its own standing in for `lab grade`, a check through run_child_process (a stand-in
// child writes lab 1's lines), then a process of its standing in for the lab child starts the
// compile process, which tries to read both of them through /proc. Without the holders
// non-dumpable (a grader that is not root), or with the compile process holding a capability (a
// grader that is root: CAP_SYS_PTRACE reads any process), it could.
TEST(CompileProcess, CannotReadTheKeyHoldersMemoryNorHoldsACapability) {
  const WorkingFolder scratch("test-holder");
  const fs::path child_script = scratch.path() / "child.sh", probed = scratch.path() / "probed.txt";
  write(child_script, stand_in_child(lab1_every_size_passed()));
  fs::permissions(child_script, fs::perms::owner_all);
  const LabSpec spec = find_lab(kLabs, "1");
  std::fflush(nullptr);
  const pid_t holder = fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {  // `lab grade`: holds the secret
    int code = 0;
    try {
      const ChildReport report = run_child_process(spec, solution_file("01-vector-add", "vector_add.cu"),
                                                   ChildMode::kCheck, {{child_script.string()}, 0x5EC2E7}, 30);
      if (report.sizes_passed() != 7) code |= 4;
      if (prctl(PR_GET_DUMPABLE) != 0) code |= 2;  // the parent still dumpable
      const pid_t child = fork();
      if (child == 0) {  // the lab child: starts the compile process
        const bool probe_ran = probe_key_holders(std::to_string(getppid()) + " " + std::to_string(getpid()), probed);
        _exit(probe_ran ? 0 : 1);
      }
      int status = 1;
      waitpid(child, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) code |= 1;
    } catch (...) {
      code |= 8;
    }
    _exit(code);
  }
  int status = -1;
  waitpid(holder, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  const std::string output = slurp(probed);
  EXPECT_EQ(WEXITSTATUS(status) & 2, 0) << "the parent that holds the secret is still dumpable";
  EXPECT_EQ(WEXITSTATUS(status) & ~2, 0) << "the check or the probe did not run\n" << output;
  EXPECT_FALSE(has(output, "read the environ")) << output;
  EXPECT_FALSE(has(output, "opened the memory")) << output;
  for (const char* set : {"CapPrm", "CapEff", "CapBnd", "CapAmb"})
    EXPECT_TRUE(has(output, std::string(set) + ":\t0000000000000000")) << set << "\n" << output;
  EXPECT_TRUE(has(output, "NoNewPrivs:\t1")) << output;
}

TEST(CompileProcess, ItsCpuTimeIsLimited) {
  const WorkingFolder folder("test");
  const CompileProcessOutcome done = shell("while :; do :; done", folder, {.wall_s = 20, .cpu_s = 1});
  EXPECT_FALSE(done.timed_out);
  EXPECT_FALSE(done.exited);
  EXPECT_TRUE(done.signal == SIGXCPU || done.signal == SIGKILL) << done.how_it_ended();
}

TEST(CompileProcess, ItsOutputIsKeptUpToTheCapAndCounted) {
  const WorkingFolder folder("test");
  const CompileProcessOutcome done = shell("head -c 100000 /dev/zero | tr '\\0' a; echo tail >&2", folder);
  EXPECT_EQ(done.output_bytes, 100005u);
  EXPECT_EQ(done.output.size(), CompileProcessOutcome::kOutputCap);
  EXPECT_TRUE(has(done.shown_output(), std::to_string(100005 - CompileProcessOutcome::kOutputCap) + " more bytes"))
      << done.shown_output().substr(done.shown_output().size() - 100);
}

TEST(CompileProcess, ItsFolderIsRemovedWithEverythingInIt) {
  fs::path kept;
  const fs::path outside = fs::temp_directory_path() / ("lb-test-outside-" + std::to_string(getpid()));
  write(outside, "kept");
  {
    const WorkingFolder folder("test");
    kept = folder.path();
    EXPECT_EQ(fs::status(kept).permissions() & fs::perms::all, fs::perms::owner_all);
    shell("mkdir -p a/b; echo x > a/b/c; ln -s " + outside.string() + " link", folder);
  }
  EXPECT_FALSE(fs::exists(kept));
  EXPECT_EQ(slurp(outside), "kept");  // a link inside was removed, not followed
  fs::remove(outside);
}

// --- what the child takes back (CPU) -------------------------------------------------------------

const char* kPtx = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry _Z4kernA(
	.param .u64 _Z4kernA_param_0,
	.param .f32 _Z4kernA_param_1,
	.param .u64 _Z4kernA_param_2
)
{
	ret;
}
)";

fs::path result_file(const WorkingFolder& folder, const nlohmann::json& json) {
  const fs::path file = folder.path() / "kernel.json";
  fs::remove(file);
  write(file, json.dump());
  return file;
}

std::string refusal(const fs::path& file, const std::vector<int>& bits = {64, 32, 64}) {
  try {
    numba_result(file, bits);
  } catch (const StudentCompileError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(NumbaResult, ThePtxEntrysParametersAreReadByWidth) {
  EXPECT_EQ(ptx_parameter_bits(kPtx, "_Z4kernA"), (std::vector<int>{64, 32, 64}));
  EXPECT_THROW(ptx_parameter_bits(kPtx, "_Z4kern"), StudentCompileError);  // a prefix is not the name
  EXPECT_THROW(ptx_parameter_bits(kPtx, "other"), StudentCompileError);
}

TEST(NumbaResult, AcceptsOnlyAKernelWithTheLabsParameters) {
  const WorkingFolder folder("test");
  const nlohmann::json good = {{"ptx", kPtx}, {"entry", "_Z4kernA"}};
  const NumbaPtx kernel = numba_result(result_file(folder, good), {64, 32, 64});
  EXPECT_EQ(kernel.entry, "_Z4kernA");
  EXPECT_EQ(kernel.ptx, kPtx);

  EXPECT_TRUE(has(refusal(folder.path() / "none.json"), "handed back no kernel"));
  EXPECT_TRUE(has(refusal(result_file(folder, good), {64, 64, 64}), "takes 3 parameters, not the 3"));
  EXPECT_TRUE(has(refusal(result_file(folder, good), {64, 32}), "takes 3 parameters, not the 2"));
  EXPECT_TRUE(has(refusal(result_file(folder, {{"ptx", kPtx}, {"entry", "missing"}})), "defines no kernel missing"));
  EXPECT_TRUE(has(refusal(result_file(folder, {{"ptx", kPtx}, {"entry", "a(b"}})), "not a PTX identifier"));
  EXPECT_TRUE(has(refusal(result_file(folder, {{"ptx", kPtx}})), "is not {"));
  EXPECT_TRUE(has(refusal(result_file(folder, {{"ptx", kPtx}, {"entry", "_Z4kernA"}, {"launch", 1}})), "is not {"));
  EXPECT_TRUE(has(refusal(result_file(folder, {{"ptx", 1}, {"entry", "_Z4kernA"}})), "is not {"));
  EXPECT_TRUE(has(refusal(result_file(folder, {{"ptx", std::string(kPtx) + '\0'}, {"entry", "_Z4kernA"}})), "NUL"));
  write(folder.path() / "garbage.json", "{\"ptx\": ");
  EXPECT_TRUE(has(refusal(folder.path() / "garbage.json"), "is not {"));
  // A link (to a file the process could not write itself) and a folder are no result.
  fs::create_symlink(result_file(folder, good), folder.path() / "link.json");
  EXPECT_TRUE(has(refusal(folder.path() / "link.json"), "handed back no kernel"));
  fs::create_directory(folder.path() / "dir.json");
  EXPECT_TRUE(has(refusal(folder.path() / "dir.json"), "handed back no kernel"));
  {
    std::ofstream big(folder.path() / "big.json");
    big << std::string(kMaxNumbaResultBytes + 1, ' ');
  }
  EXPECT_TRUE(has(refusal(folder.path() / "big.json"), "more than the 16 MiB"));
}

TEST(NumbaResult, ANumbaKernelTakesEachArrayAsFiveParametersAndTwoPerDimension) {
  // Lab 5: a, b, c (1-D: meminfo, parent, nitems, itemsize, data, shape, stride) and n (int64).
  const LabSpec lab5 = find_lab(kLabs, "05-numba-vector-add");
  EXPECT_EQ(parameter_bits(lab5, KernelAbi::kNumba), std::vector<int>(22, 64));
  EXPECT_EQ(parameter_bits(lab5, KernelAbi::kC), std::vector<int>(4, 64));
  // Lab 7's saxpy arguments as Numba would take them: the scalar is a float32.
  const LabSpec lab7 = find_lab(kLabs, "07-cuda-core-saxpy");
  std::vector<int> expected;
  for (const std::string& name : lab7.arguments) {
    if (name == "alpha") expected.push_back(32);
    else if (name == "n") expected.push_back(64);
    else expected.insert(expected.end(), 7, 64);
  }
  EXPECT_EQ(parameter_bits(lab7, KernelAbi::kNumba), expected);
  // Lab 3's reduce arguments (x, n, out): out, one element with no extents, is a 1-D array of one,
  // as rules.py's signature types it (float32[::1]): 7 + 1 + 7.
  const LabSpec lab3 = find_lab(kLabs, "03-reduce");
  EXPECT_EQ(lab3.arguments, (std::vector<std::string>{"x", "n", "out"}));
  EXPECT_EQ(parameter_bits(lab3, KernelAbi::kNumba), std::vector<int>(15, 64));
}

// --- Numba in the compile process (no GPU: Numba compiles for the compute capability given) -----

// Why the chosen Python cannot compile Numba kernels here; empty when it can.
std::string numba_unavailable() {
  const std::string command = chosen_python() + " -c 'import numba.cuda' >/dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? "" : chosen_python() + " cannot import numba.cuda";
}

TEST(NumbaCompile, TheSolutionComesBackAsPtxWithItsEntry) {
  if (const std::string why = numba_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = find_lab(kLabs, "05-numba-vector-add");
  const NumbaPtx kernel = compile_numba_kernel(spec, solution_file(spec), 90, {});
  EXPECT_TRUE(has(kernel.entry, "lab_vector_add")) << kernel.entry;
  EXPECT_TRUE(has(kernel.ptx, ".target sm_90")) << kernel.ptx.substr(0, 400);
  EXPECT_EQ(ptx_parameter_bits(kernel.ptx, kernel.entry).size(), 22u);
  EXPECT_GT(kernel.compile_ms, 0);
}

TEST(NumbaCompile, ASignatureStringsHostCodeRunsOnlyInTheCompileProcess) {
  if (const std::string why = numba_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = find_lab(kLabs, "05-numba-vector-add");
  const fs::path planted = planted_file(spec.name, "signature_runs_host_code.py");
  try {
    compile_numba_kernel(spec, planted, 90, {});
    ADD_FAILURE() << planted << " handed back a kernel";
  } catch (const StudentCompileError& e) {
    const std::string message = e.what();
    // One line first: what failed; then what the file printed, as its output, never as a verdict.
    EXPECT_EQ(message.substr(0, message.find('\n')),
              planted.string() + ": Numba's compile of lab_vector_add: the compile process handed back no kernel")
        << message;
    EXPECT_TRUE(has(message, "what it printed:\n{\"size\": \"1\", \"passed\": true}")) << message;
  }
}

TEST(NumbaCompile, ACompileErrorNamesTheFileAndTheName) {
  if (const std::string why = numba_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = find_lab(kLabs, "05-numba-vector-add");
  const WorkingFolder folder("test");
  const fs::path file = folder.path() / "vector_add.py";
  write(file,
        "from numba import cuda\n\n@cuda.jit\ndef lab_vector_add(a, b, c, n):\n    i = cuda.grid(1)\n"
        "    if i < n:\n        c[i] = a[i] + undefined_name\n");
  try {
    compile_numba_kernel(spec, file, 90, {});
    ADD_FAILURE() << "compiled";
  } catch (const StudentCompileError& e) {
    EXPECT_TRUE(has(e.what(), "failed (exit status 1)")) << e.what();
    EXPECT_TRUE(has(e.what(), "Numba could not compile lab_vector_add")) << e.what();
    EXPECT_TRUE(has(e.what(), "undefined_name")) << e.what();
  }
}

// --- on a GPU: the compiled kernel launched as Numba's kernels take their arguments ---------------

// A lab of the numba runner on `workload`, in dir_/labs/90-numba-<workload>, with `kernel` as its
// solution; `lab check` of it, which must pass every size.
class NumbaAbiOnTheGpu : public LabCliTest {
 protected:
  void SetUp() override {
    LabCliTest::SetUp();
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
    if (const std::string why = numba_unavailable(); !why.empty()) GTEST_SKIP() << why;
  }
  Outcome check(const std::string& workload, const std::string& arguments, const std::string& launch,
                const std::string& sizes, const std::string& output_starts, const std::string& kernel) const {
    const fs::path lab = dir_ / "labs" / ("90-numba-" + workload);
    write(lab / "README.md", "A Numba kernel of " + workload + ", launched through its PTX.\n");
    write(lab / "k.py", kernel);
    std::string names;  // the signature's text starts with the kernel's parameters, in order
    for (const auto& name : nlohmann::json::parse(arguments))
      names += (names.empty() ? "" : ", ") + name.get<std::string>();
    const nlohmann::json spec = {
        {"title", "Numba " + workload}, {"order", 90}, {"workload", workload}, {"student_file", "k.py"},
        {"runner", "numba"}, {"kernel", "k"}, {"signature", "k(" + names + ")"},
        {"arguments", nlohmann::json::parse(arguments)}, {"output_starts", output_starts},
        {"launch", nlohmann::json::parse(launch)}, {"check_sizes", nlohmann::json::parse(sizes)},
        {"benchmark_sizes", {"2^20"}}, {"points", {{"check", 60}, {"performance", 40}}},
        {"baseline_layer", "runtime"},
        {"tiers", {{{"fraction_of", "runtime"}, {"at_least", 0.5}, {"points", 40}}}}, {"time_limit_s", 120}};
    write(lab / "lab.json", spec.dump(2));
    return run("lab --labs " + (dir_ / "labs").string() + " check 90 " + (lab / "k.py").string());
  }
};

TEST_F(NumbaAbiOnTheGpu, SaxpysScalarAndAGridStrideLaunch) {
  const Outcome o = check("saxpy", R"(["alpha", "x", "y", "n"])", R"({"block": [128], "grid": "grid_stride"})",
                          R"(["1", "1000", "1000003"])", "poison",
                          "from numba import cuda\n\n@cuda.jit\ndef k(alpha, x, y, n):\n"
                          "    for i in range(cuda.grid(1), n, cuda.gridsize(1)):\n"
                          "        y[i] = alpha * x[i] + y[i]\n");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "PASS: all 3 sizes passed")) << o.out << o.err;
}

TEST_F(NumbaAbiOnTheGpu, MatmulsTwoDimensionalArraysAndGrid) {
  const Outcome o = check("matmul", R"(["A", "B", "C", "M", "N", "K"])",
                          R"({"block": [16, 8], "grid": "cover_mn"})", R"(["5x9x3", "33x17x65", "128"])", "poison",
                          "from numba import cuda, float32\n\n@cuda.jit\ndef k(A, B, C, M, N, K):\n"
                          "    col, row = cuda.grid(2)\n    if row < M and col < N:\n"
                          "        total = float32(0)\n        for j in range(K):\n"
                          "            total += A[row, j] * B[j, col]\n        C[row, col] = total\n");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "PASS: all 3 sizes passed")) << o.out << o.err;
}

TEST_F(NumbaAbiOnTheGpu, AReduceIntoAZeroedOutput) {
  const Outcome o = check("reduce", R"(["x", "n", "out"])", R"({"block": [256], "grid": "cover_n"})",
                          R"(["1", "1000", "65537"])", "zero",
                          "from numba import cuda\n\n@cuda.jit\ndef k(x, n, out):\n    i = cuda.grid(1)\n"
                          "    if i < n:\n        cuda.atomic.add(out, 0, x[i])\n");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "PASS: all 3 sizes passed")) << o.out << o.err;
}

TEST_F(NumbaAbiOnTheGpu, AWriteOnePastTheEndLandsInTheGuard) {
  const Outcome o = check("vector_add", R"(["a", "b", "c", "n"])", R"({"block": [256], "grid": "cover_n"})",
                          R"(["1000"])", "poison",
                          "from numba import cuda\n\n@cuda.jit\ndef k(a, b, c, n):\n    i = cuda.grid(1)\n"
                          "    if i <= n:\n        c[i] = a[i] + b[i]\n");
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "past the end")) << o.out << o.err;
}

}  // namespace
