// The Python labs (lab 05, Numba): the rules check in the parent (no GPU: a file that breaks them
// fails before any child starts), `lab start`, and on a GPU the solution, the skeleton and each
// planted submission through `lab check`. Planted files (labs/05-*/wrong/*.py) start with
// "# expect: <substring of the output>". The rules themselves, case by case, are pytest's
// (tests/python/test_lab_python_rules.py). And the labs whose CUDA C++ kernel text a Python layer
// compiles and launches (06 PyCUDA, 07 cuda.core; their runners' own checks are
// tests/python/test_lab_kernel_text.py): the parent's NVRTC compile, and on a GPU what is theirs
// beyond the planted files that tests/test_lab.cpp runs for every lab.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "common/gpu.h"
#include "lab/commands/lab_check.h"
#include "lab/spec/lab_spec.h"
#include "lab/runners/runner.h"
#include "lab/commands/sanitize.h"
#include "lab/child/student_program.h"
#include "lab/runners/nvrtc/lab_kernel.h"  // compile_student_kernel
#include "lab_test_support.h"
#include "variants/python/python_layer.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;

const std::string kLab = "05-numba-vector-add";
const fs::path kPlanted = wrong_dir(kLab);
// The planted files that break the rules: rejected in the parent, with no GPU.
const std::set<std::string> kRuleBreakers = {"host_numpy.py", "host_function.py", "patches_timer.py"};

std::string expected_of(const fs::path& planted) {
  std::ifstream in(planted);
  std::string first;
  std::getline(in, first);
  const std::string marker = "# expect: ";
  return first.rfind(marker, 0) == 0 ? first.substr(marker.size()) : std::string();
}

// The Python labs run in the embedded interpreter: a build without it (-DLAYERBENCH_PYTHON_LAYERS=OFF,
// or no pybind11) refuses them, saying so, and these tests skip with its reason.
#define SKIP_WITHOUT_EMBEDDED_PYTHON()                                                   \
  if (const std::string built_without = python_layers_built_without(); !built_without.empty()) \
  GTEST_SKIP() << built_without

class PythonLab : public LabCliTest {
 protected:
  // `lab check 05` on a file written in dir_ under `name`.
  Outcome check_text(const std::string& name, const std::string& text) const {
    write(dir_ / name, text);
    return run("lab check " + kLab + " " + name);
  }
};

// --- no GPU needed ------------------------------------------------------------------------------

TEST(PythonLabSpec, Lab05ParsesAsAPythonLab) {
  const LabSpec spec = find_lab(kLabs, "5");
  EXPECT_EQ(spec.name, kLab);
  EXPECT_EQ(spec.student_file, "vector_add.py");
  EXPECT_EQ(spec.runner->name(), "numba");
  EXPECT_EQ(find_lab(kLabs, "1").runner->name(), "nvrtc");
  EXPECT_EQ(spec.arguments, (std::vector<std::string>{"a", "b", "c", "n"}));
  EXPECT_EQ(spec.launch.block_x, 256u);
}

TEST(PythonLabSpec, PrecheckPassesTheSolutionAndSkeletonAndRejectsRuleBreakers) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  const LabSpec spec = find_lab(kLabs, kLab);
  EXPECT_NO_THROW(spec.runner->precheck(spec, solution_file(kLab, "vector_add.py")));
  EXPECT_NO_THROW(spec.runner->precheck(spec, spec.dir / "vector_add.py"));
  for (const std::string& name : kRuleBreakers) {
    const fs::path file = kPlanted / name;
    try {
      spec.runner->precheck(spec, file);
      ADD_FAILURE() << file << " passed the rules check";
    } catch (const StudentCompileError& e) {
      const std::string message = e.what();
      EXPECT_TRUE(has(message, file.string() + ":")) << message;
      EXPECT_TRUE(has(message, expected_of(file))) << message;
    }
  }
  EXPECT_THROW(spec.runner->precheck(spec, "no_such_file.py"), UsageError);
}

TEST_F(PythonLab, HostComputeIsRejectedBeforeAnyGpuWithFileAndLine) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  const fs::path file = kPlanted / "host_numpy.py";
  const Outcome o = run("lab check " + kLab + " " + file.string());
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, file.string() + ":3: only @cuda.jit kernels, imports of numba and math, and constant "
                                         "assignments may be at the top of a lab file (this imports numpy"))
      << o.out;
  EXPECT_FALSE(has(o.out, "no usable GPU")) << o.out;  // the parent rejected it: no child ran
}

TEST_F(PythonLab, EveryRuleBreakingPlantedFileFailsWithItsExpectation) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  for (const std::string& name : kRuleBreakers) {
    const fs::path file = kPlanted / name;
    const Outcome o = run("lab check " + kLab + " " + file.string());
    EXPECT_EQ(o.code, kExitFailed) << name << "\n" << o.out << o.err;
    EXPECT_TRUE(has(o.out, expected_of(file))) << name << " expects '" << expected_of(file) << "'\n" << o.out;
  }
}

TEST_F(PythonLab, TopLevelCallNamesFileLineAndTheCall) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  const Outcome o = check_text("vector_add.py",
                               "from numba import cuda\n"
                               "\n"
                               "@cuda.jit\n"
                               "def lab_vector_add(a, b, c, n):\n"
                               "    pass\n"
                               "\n"
                               "print('hello from the host')\n");
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "vector_add.py:7: only @cuda.jit kernels")) << o.out;
  EXPECT_TRUE(has(o.out, "this is a call to print")) << o.out;
}

TEST_F(PythonLab, SyntaxErrorNamesFileAndLine) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  const Outcome o = check_text("vector_add.py",
                               "from numba import cuda\n"
                               "\n"
                               "@cuda.jit\n"
                               "def lab_vector_add(a, b, c, n)\n"
                               "    pass\n");
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "vector_add.py:4: SyntaxError: ")) << o.out;
}

TEST_F(PythonLab, MissingOrDeviceOnlyKernelIsNamed) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  Outcome o = check_text("other.py", "from numba import cuda\n\n@cuda.jit\ndef add(a, b, c, n):\n    pass\n");
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "other.py: no kernel named lab_vector_add")) << o.out;
  o = check_text("device.py",
                 "from numba import cuda\n\n@cuda.jit(device=True)\ndef lab_vector_add(a, b, c, n):\n    pass\n");
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "device.py:4: lab_vector_add is a device function")) << o.out;
  o = check_text("three.py", "from numba import cuda\n\n@cuda.jit\ndef lab_vector_add(a, b, c):\n    pass\n");
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "three.py:4: lab_vector_add must take exactly 4 parameters")) << o.out;
}

TEST_F(PythonLab, StartCopiesReadmeSpecAndSkeletonButNoSolution) {
  const Outcome o = run("lab start 5 work");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  std::set<std::string> copied;
  for (const auto& entry : fs::directory_iterator(dir_ / "work")) copied.insert(entry.path().filename().string());
  EXPECT_EQ(copied, (std::set<std::string>{"README.md", "lab.json", "vector_add.py"}));
  EXPECT_EQ(slurp(dir_ / "work" / "vector_add.py"), slurp(kLabs / kLab / "vector_add.py"));
  EXPECT_NE(slurp(dir_ / "work" / "vector_add.py"), slurp(solution_file(kLab, "vector_add.py")));
  EXPECT_TRUE(has(run("lab list").out, kLab));
}

// A build without the embedded interpreter refuses a Python lab in one line that says why.
TEST_F(PythonLab, ABuildWithoutPythonRefusesThePythonLabSayingWhy) {
  const std::string built_without = python_layers_built_without();
  if (built_without.empty()) GTEST_SKIP() << "this build embeds Python: the tests above check the Python labs";
  const Outcome o = run("lab check " + kLab + " " + solution_file(kLab, "vector_add.py").string());
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out + o.err, "cannot check Python labs")) << o.out << o.err;
  EXPECT_TRUE(has(o.out + o.err, built_without)) << o.out << o.err;
}

// --- the kernel-text labs: CUDA C++ compiled and launched by a Python layer ----------------------

// Each lab whose student file is CUDA C++ that a Python layer compiles and launches, and its runner.
const std::vector<std::pair<std::string, std::string>> kKernelTextLabs = {
    {"06-pycuda-vector-add", "pycuda"}, {"07-cuda-core-saxpy", "cuda-core"}};

TEST(KernelTextLabSpec, ParseWithTheirRunnersAndNeedTheEmbeddedInterpreter) {
  for (const auto& [name, runner] : kKernelTextLabs) {
    const LabSpec spec = find_lab(kLabs, name);
    EXPECT_EQ(spec.runner->name(), runner) << name;
    EXPECT_EQ(fs::path(spec.student_file).extension(), ".cu") << name;
    EXPECT_EQ(spec.runner->compile_failed_as(), "does not compile") << name;  // CUDA C++ text: no Python rules
    EXPECT_TRUE(spec.runner->embedded_python()) << name;
  }
  EXPECT_TRUE(find_lab(kLabs, kLab).runner->embedded_python());
  EXPECT_FALSE(find_lab(kLabs, "1").runner->embedded_python());
}

// The precheck's compile (compile_student_kernel, in the limited compile process that runs
// layerbench's helper: this test's executable is not layerbench, so it is named; the runner's own
// precheck, through `lab check`, is PythonLab.KernelTextCompileErrorIsReportedBeforeAnyGpuWithFileAndLine).
TEST(KernelTextLabSpec, PrecheckCompilesTheTextWithNvrtcWithoutAGpu) {
  const StudentBuild helper{.compile_helper = LB_EXE};  // this test's executable is not layerbench
  for (const auto& [name, runner] : kKernelTextLabs) {
    const LabSpec spec = find_lab(kLabs, name);
    EXPECT_NO_THROW(compile_student_kernel(spec, spec.dir / spec.student_file, kHostCheckSm, true, helper)) << name;
    EXPECT_NO_THROW(compile_student_kernel(spec, solution_file(name, spec.student_file), kHostCheckSm, true, helper))
        << name;
    EXPECT_THROW(compile_student_kernel(spec, "no_such_file.cu", kHostCheckSm, true, helper), UsageError) << name;
  }
}

TEST_F(PythonLab, KernelTextCompileErrorIsReportedBeforeAnyGpuWithFileAndLine) {
  for (const auto& [name, runner] : kKernelTextLabs) {
    const LabSpec spec = find_lab(kLabs, name);
    write(dir_ / "broken.cu", "extern \"C\" __global__ void " + spec.kernel + "(float* p) {\n  p[0] = 1\n}\n");
    const Outcome o = run("lab check " + name + " broken.cu");
    EXPECT_EQ(o.code, kExitFailed) << name << "\n" << o.out << o.err;
    EXPECT_TRUE(has(o.out, "broken.cu(3): error")) << name << "\n" << o.out;
    EXPECT_TRUE(has(o.out, "does not compile")) << name << "\n" << o.out;
    EXPECT_FALSE(has(o.out, "no usable GPU")) << o.out;  // the parent rejected it: no child ran
  }
}

TEST_F(PythonLab, KernelTextStartCopiesTheSkeletonButNoSolution) {
  for (const auto& [name, runner] : kKernelTextLabs) {
    const LabSpec spec = find_lab(kLabs, name);
    const Outcome o = run("lab start " + name + " " + name);
    EXPECT_EQ(o.code, 0) << o.out << o.err;
    EXPECT_EQ(slurp(dir_ / name / spec.student_file), slurp(spec.dir / spec.student_file)) << name;
    EXPECT_NE(slurp(dir_ / name / spec.student_file), slurp(solution_file(name, spec.student_file))) << name;
    EXPECT_TRUE(fs::exists(dir_ / name / "README.md")) << name;
  }
}

// Under --sanitize the runners compile with -G (nvcc through PyCUDA, NVRTC through cuda.core) and
// allocate exact buffers (PyCUDA's mem_alloc, cuda.core's memory pool): a correct kernel shows no
// error. The planted files with expect-sanitize show that the errors are seen (tests/test_lab.cpp).
TEST_F(PythonLab, KernelTextSolutionsAreCleanUnderTheSanitizerOnTheGpu) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  if (const ToolLookup tool = find_cuda_tool("compute-sanitizer"); !tool.found()) GTEST_SKIP() << tool.why_not;
  for (const auto& [name, runner] : kKernelTextLabs) {
    const LabSpec spec = find_lab(kLabs, name);
    const fs::path solution = solution_file(name, spec.student_file);
    const Outcome o = run("lab check --sanitize " + name + " " + solution.string());
    EXPECT_EQ(o.code, kExitPassed) << name << "\n" << o.out << o.err;
    EXPECT_TRUE(has(o.out, "compute-sanitizer memcheck: 0 errors")) << name << "\n" << o.out;
  }
}

// --- on a GPU -----------------------------------------------------------------------------------

TEST_F(PythonLab, SolutionPassesOnTheGpu) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const Outcome o = run("lab check " + kLab + " " + solution_file(kLab, "vector_add.py").string());
  EXPECT_EQ(o.code, kExitPassed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "PASS: all 7 sizes passed")) << o.out;
}

TEST_F(PythonLab, SkeletonFailsOnTheGpu) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const Outcome o = run("lab check " + kLab + " " + (kLabs / kLab / "vector_add.py").string());
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "never written")) << o.out;
}

// The planted files' check verdicts on the GPU: EachPlantedFile/PlantedOnTheGpu.GetsItsCheckVerdict/05_numba_vector_add_*
// (tests/test_lab.cpp), which reads every lab's planted files, this one's too.

TEST_F(PythonLab, NumbaCompileErrorIsReportedAsACompileErrorOnTheGpu) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const Outcome o = check_text("vector_add.py",
                               "from numba import cuda\n"
                               "\n"
                               "@cuda.jit\n"
                               "def lab_vector_add(a, b, c, n):\n"
                               "    i = cuda.grid(1)\n"
                               "    if i < n:\n"
                               "        c[i] = a[i] + undefined_name\n");
  EXPECT_EQ(o.code, kExitFailed) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "Numba could not compile lab_vector_add")) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "undefined_name")) << o.out << o.err;
}

TEST_F(PythonLab, GradeTimesTheSolutionOnTheGpu) {
  SKIP_WITHOUT_EMBEDDED_PYTHON();
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const Outcome o = run("lab grade " + kLab + " " + solution_file(kLab, "vector_add.py").string());
  EXPECT_EQ(o.code, kExitPassed) << o.out << o.err;
  std::printf("%s\n", o.out.c_str());
}

}  // namespace
