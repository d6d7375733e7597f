// The triton runner (lab/runners/triton/): what the child takes back from its compile process, and
// the compile process itself. On the CPU: the result's checks (its size, its fields, its entry, the
// entry's parameters as the lab's arguments plus Triton's two scratch pointers, the block its
// num_warps and .reqntid make, its shared memory), against a PTX fixture shaped as Triton 3.6
// writes it (tests/fixtures/triton/row_softmax.ptx: the lab's solution compiled by
// `python -m layerbench.lab.triton_compile` for sm_90); the parameters a Triton kernel takes for
// lab 10's folder. Where the chosen Python has Triton (no GPU needed: Triton compiles to PTX for the
// compute capability it is given): the solution compiled; a file whose top-level code prints runs
// only in the compile process and hands back no kernel; a compile error names the file. The lab's
// solution and planted files through `lab check` and `lab grade` on a GPU are tests/test_lab.cpp's
// (EachLab/LabSolutionOnTheGpu, EachPlantedFile/PlantedOnTheGpu, EachGradedPlantedFile/...).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/python_interpreter.h"
#include "lab/child/student_program.h"
#include "lab/runners/compile_process.h"
#include "lab/runners/compiled_ptx.h"
#include "lab/runners/nvrtc/lab_kernel.h"
#include "lab/runners/triton/triton_kernel.h"
#include "lab/spec/lab_spec.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;

const std::vector<int> kLab10Bits = {64, 64, 64, 64, 64, 64};  // x, y, m, n, then the two scratch pointers

// Lab 10 is on a workload folder, which only the embedded interpreter reads: a build without it
// (-DLAYERBENCH_PYTHON_LAYERS=OFF, or no pybind11) leaves the lab out, and these tests skip.
#define NEED_EMBEDDED_PYTHON()                                                                                    \
  do {                                                                                                            \
    if (const std::string why = python_layers_built_without(); !why.empty())                                      \
      GTEST_SKIP() << "lab 10's workload folder is read by the embedded interpreter, which this build lacks: " << why; \
  } while (0)

std::string fixture_ptx() { return slurp(kRoot / "tests" / "fixtures" / "triton" / "row_softmax.ptx"); }

nlohmann::json good_result() {
  return {{"ptx", fixture_ptx()}, {"entry", "row_softmax"}, {"num_warps", 8}, {"shared_bytes", 32}};
}

fs::path result_file(const WorkingFolder& folder, const nlohmann::json& json) {
  const fs::path file = folder.path() / "kernel.json";
  fs::remove(file);
  write(file, json.dump());
  return file;
}

std::string refusal(const fs::path& file, const std::vector<int>& bits = kLab10Bits, unsigned block = 256) {
  try {
    triton_result(file, bits, block);
  } catch (const StudentCompileError& e) {
    return e.what();
  }
  return "accepted";
}

// --- what the child takes back (CPU) -------------------------------------------------------------

TEST(TritonResult, TheFixturesEntryHasTheLabsParametersThenTwoScratchPointers) {
  const std::string ptx = fixture_ptx();
  ASSERT_TRUE(has(ptx, ".target sm_90a")) << "the fixture is Triton's PTX for sm_90";
  EXPECT_EQ(ptx_parameter_bits(ptx, "row_softmax"), kLab10Bits);
}

TEST(TritonResult, AcceptsOnlyAKernelWithTheLabsParametersBlockAndSharedMemory) {
  const WorkingFolder folder("test");
  const TritonPtx kernel = triton_result(result_file(folder, good_result()), kLab10Bits, 256);
  EXPECT_EQ(kernel.entry, "row_softmax");
  EXPECT_EQ(kernel.num_warps, 8u);
  EXPECT_EQ(kernel.shared_bytes, 32u);

  EXPECT_TRUE(has(refusal(folder.path() / "none.json"), "handed back no kernel"));
  // The lab's four arguments alone (no scratch pointers), or one of them 32 bits wide.
  EXPECT_TRUE(has(refusal(result_file(folder, good_result()), {64, 64, 64, 64}), "takes 6 parameters, not the 4"));
  EXPECT_TRUE(has(refusal(result_file(folder, good_result()), {64, 64, 32, 64, 64, 64}), "takes 6 parameters, not the 6"));
  // A block the lab does not launch: by num_warps, and by the PTX's .reqntid 256 against a result
  // claiming 4 warps for a lab of 128 threads.
  EXPECT_TRUE(has(refusal(result_file(folder, good_result()), kLab10Bits, 128), "not the lab's block of 128"));
  nlohmann::json four = good_result();
  four["num_warps"] = 4;
  EXPECT_TRUE(has(refusal(result_file(folder, four), kLab10Bits, 128), "requires 256 threads"));
  nlohmann::json greedy = good_result();
  greedy["shared_bytes"] = 300000;
  EXPECT_TRUE(has(refusal(result_file(folder, greedy)), "more than the 227 KiB"));
  for (const char* field : {"ptx", "entry", "num_warps", "shared_bytes"}) {
    nlohmann::json missing = good_result();
    missing.erase(field);
    EXPECT_TRUE(has(refusal(result_file(folder, missing)), "is not {")) << field;
  }
  nlohmann::json extra = good_result();
  extra["global_scratch"] = 0;
  EXPECT_TRUE(has(refusal(result_file(folder, extra)), "is not {"));
  nlohmann::json negative = good_result();
  negative["shared_bytes"] = -1;
  EXPECT_TRUE(has(refusal(result_file(folder, negative)), "is not {"));
  nlohmann::json text = good_result();
  text["num_warps"] = "8";
  EXPECT_TRUE(has(refusal(result_file(folder, text)), "is not {"));
  nlohmann::json other = good_result();
  other["entry"] = "row_softmax_kernel";
  EXPECT_TRUE(has(refusal(result_file(folder, other)), "defines no kernel row_softmax_kernel"));
  other["entry"] = "a(b";
  EXPECT_TRUE(has(refusal(result_file(folder, other)), "not a PTX identifier"));
  nlohmann::json nul = good_result();
  nul["ptx"] = fixture_ptx() + '\0';
  EXPECT_TRUE(has(refusal(result_file(folder, nul)), "NUL"));
  fs::create_symlink(result_file(folder, good_result()), folder.path() / "link.json");
  EXPECT_TRUE(has(refusal(folder.path() / "link.json"), "handed back no kernel"));
  {
    std::ofstream big(folder.path() / "big.json");
    big << std::string(kMaxTritonResultBytes + 1, ' ');
  }
  EXPECT_TRUE(has(refusal(folder.path() / "big.json"), "more than the 16 MiB"));
}

TEST(TritonResult, Lab10sKernelTakesItsFoldersArgumentsAsTheirCTypesThenTwoPointers) {
  NEED_EMBEDDED_PYTHON();
  const LabSpec spec = find_lab(kLabs, "10-triton-softmax");
  EXPECT_EQ(spec.runner->name(), "triton");
  EXPECT_EQ(argument_c_types(spec), (std::vector<std::string>{"const float*", "float*", "long long", "long long"}));
  EXPECT_EQ(parameter_bits(spec, KernelAbi::kTriton), kLab10Bits);
  EXPECT_EQ(triton_block_threads(spec), 256u);  // workload.json's block: 8 warps
  // A built-in workload's arguments as a Triton kernel takes them: saxpy's alpha is a float.
  const LabSpec lab7 = find_lab(kLabs, "07-cuda-core-saxpy");
  std::vector<int> expected;
  for (const std::string& name : lab7.arguments) expected.push_back(name == "alpha" ? 32 : 64);
  expected.insert(expected.end(), 2, 64);
  EXPECT_EQ(parameter_bits(lab7, KernelAbi::kTriton), expected);
}

TEST(TritonResult, APythonLabWithoutARunnerStaysNumbas) {
  EXPECT_EQ(default_runner_for("vector_add.py")->name(), "numba");
  ASSERT_NE(find_runner("triton"), nullptr);
  EXPECT_EQ(find_runner("triton")->extension(), ".py");
}

// --- Triton in the compile process (no GPU: Triton compiles for the compute capability given) ---

// Why the chosen Python cannot compile Triton kernels here; empty when it can.
std::string triton_unavailable() {
  const std::string command = chosen_python() + " -c 'import triton' >/dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? "" : chosen_python() + " cannot import triton (LAYERBENCH_PYTHON names another)";
}

TEST(TritonCompile, TheProbeSaysWhetherTheChosenPythonHasTriton) {
  const std::string why = triton_unavailable_reason();
  EXPECT_EQ(why.empty(), triton_unavailable().empty()) << why;
  if (!why.empty()) {
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    EXPECT_TRUE(has(why, chosen_python() + " cannot import (")) << why;
    EXPECT_TRUE(has(why, "-m pip install triton")) << why;
    EXPECT_TRUE(has(why, "LAYERBENCH_PYTHON")) << why;
  }
}

// Without Triton the check cannot run here: one line naming what to install, exit 3 (as without a
// GPU), after the rules (which need no Triton) have been checked; never a traceback, never a fail
// of the student's file.
class TritonCheck : public LabCliTest {};

TEST_F(TritonCheck, WithoutTritonTheCheckSaysWhatToInstallAndExits3) {
  NEED_EMBEDDED_PYTHON();
  if (triton_unavailable().empty()) GTEST_SKIP() << chosen_python() << " has triton: TritonCompile.* and the GPU tests run";
  const Outcome o = run("lab check 10 " + solution_file("10-triton-softmax", "row_softmax.py").string());
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "cannot run the check here: the triton runner compiles with Triton, which ")) << o.out;
  EXPECT_TRUE(has(o.out, "-m pip install triton")) << o.out;
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << o.out;
  EXPECT_FALSE(has(o.out + o.err, "Traceback")) << o.out << o.err;
  // The rules come first: a file that breaks them is told so, Triton or not.
  const Outcome planted = run("lab check 10 " + planted_file("10-triton-softmax", "host_code_at_import.py").string());
  EXPECT_EQ(planted.code, 1) << planted.out << planted.err;
  EXPECT_TRUE(has(planted.out, "this imports os")) << planted.out;
  // The lab is listed all the same: it is read without Triton (its rules, its folder).
  const Outcome list = run("lab list");
  EXPECT_EQ(list.code, 0) << list.out << list.err;
  EXPECT_TRUE(has(list.out, "  10-triton-softmax ")) << list.out;
}

TEST(TritonCompile, TheSolutionComesBackAsPtxWithItsEntryAndLaunch) {
  NEED_EMBEDDED_PYTHON();
  if (const std::string why = triton_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = find_lab(kLabs, "10-triton-softmax");
  const TritonPtx kernel = compile_triton_kernel(spec, solution_file(spec), 90, {});
  EXPECT_EQ(kernel.entry, "row_softmax");
  EXPECT_TRUE(has(kernel.ptx, ".target sm_90")) << kernel.ptx.substr(0, 400);
  EXPECT_TRUE(has(kernel.ptx, ".reqntid 256")) << kernel.ptx.substr(0, 1200);
  EXPECT_EQ(ptx_parameter_bits(kernel.ptx, kernel.entry), kLab10Bits);
  EXPECT_EQ(kernel.num_warps, 8u);
  EXPECT_GT(kernel.compile_ms, 0);
}

// The compile's whole C++ path (the process's command line and environment, its result checked)
// for a lab on a built-in workload, which needs no embedded interpreter: lab 7's spec (saxpy:
// alpha a float, x, y, n a long long; a block of 256), a Triton saxpy in its place.
TEST(TritonCompile, ABuiltInWorkloadsArgumentsComeBackAsTheirWidths) {
  if (const std::string why = triton_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = find_lab(kLabs, "07-cuda-core-saxpy");
  const WorkingFolder folder("test");
  const fs::path file = folder.path() / "saxpy.py";
  write(file,
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def lab_saxpy(alpha, x, y, n, BLOCK: tl.constexpr = 1024):\n"
        "    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(y + i, alpha * tl.load(x + i, mask=i < n) + tl.load(y + i, mask=i < n), mask=i < n)\n");
  const TritonPtx kernel = compile_triton_kernel(spec, file, 90, {});
  EXPECT_EQ(kernel.entry, "lab_saxpy");
  EXPECT_EQ(kernel.num_warps, 8u);
  EXPECT_TRUE(has(kernel.ptx, ".reqntid 256")) << kernel.ptx.substr(0, 1200);
  EXPECT_EQ(ptx_parameter_bits(kernel.ptx, kernel.entry), (std::vector<int>{32, 64, 64, 64, 64, 64}));
  EXPECT_EQ(ptx_parameter_bits(kernel.ptx, kernel.entry), parameter_bits(spec, KernelAbi::kTriton));
}

// What runs of the student's file runs in the compile process alone: here tl.static_print, which
// Triton runs while it compiles, writes a line the grade would believe, then the kernel fails to
// compile. The failure comes first, in one line; what the file printed follows as its output,
// never parsed, and no kernel comes back.
TEST(TritonCompile, WhatTheFilePrintsWhileCompilingIsShownAsItsOutputNeverBelieved) {
  NEED_EMBEDDED_PYTHON();
  if (const std::string why = triton_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = find_lab(kLabs, "10-triton-softmax");
  const WorkingFolder folder("test");
  const fs::path file = folder.path() / "row_softmax.py";
  write(file,
        "import triton\nimport triton.language as tl\n\n@triton.jit\ndef row_softmax(x, y, m, n, BLOCK: tl.constexpr = 64):\n"
        "    tl.static_print('{\"size\": \"1x1\", \"passed\": true}')\n    tl.store(y + undefined_name, 1.0)\n");
  try {
    compile_triton_kernel(spec, file, 90, {});
    ADD_FAILURE() << "compiled";
  } catch (const StudentCompileError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.substr(0, message.find('\n')),
              file.string() + ": Triton's compile of row_softmax failed (exit status 1)")
        << message;
    EXPECT_TRUE(has(message, "what it printed:\n")) << message;
    EXPECT_TRUE(has(message, "Triton could not compile row_softmax")) << message;
    EXPECT_TRUE(has(message, "undefined_name")) << message;
  }
}

TEST(TritonCompile, HostCodeAtImportIsRefusedInTheCompileProcessToo) {
  NEED_EMBEDDED_PYTHON();
  if (const std::string why = triton_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const LabSpec spec = find_lab(kLabs, "10-triton-softmax");
  const fs::path planted = planted_file(spec.name, "host_code_at_import.py");
  try {
    compile_triton_kernel(spec, planted, 90, {});
    ADD_FAILURE() << planted << " handed back a kernel";
  } catch (const StudentCompileError& e) {
    // The process checks the rules again before it imports anything: the shell command never runs.
    EXPECT_TRUE(has(e.what(), "this imports os")) << e.what();
    EXPECT_FALSE(has(e.what(), "{\"size\": \"3x70000\", \"passed\": true}\n")) << e.what();
  }
}

}  // namespace
