// The kernel-text labs (runners nvrtc, pycuda, cuda-core: labs 1-4, 6, 7, 9) and what keeps their
// text to kernel text: the rule lexer's kernel-text dialect (lab/runners/nvrtc/kernel_text_rules.h:
// each refused construct with its line, the tricks that hide one, the pragmas the solutions use,
// every lab file and example workload still passing), and the limited compile process
// (lab/runners/nvrtc/limited_compile.h: a kernel compiled through the helper to a CUBIN, NVRTC's log
// on an error, a compile bomb stopped at the wall limit and a memory bomb at the address-space
// limit, each with its one line),
// and `lab check` refusing a rule breaker and each planted file of these classes with its line and
// exit status 1 (all CPU: NVRTC needs no GPU, and the precheck runs before the child).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "lab/child/student_program.h"
#include "lab/runners/nvrtc/kernel_text_rules.h"
#include "lab/runners/nvrtc/lab_kernel.h"
#include "lab/runners/nvrtc/limited_compile.h"
#include "lab/spec/lab_spec.h"
#include "lab_test_support.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;

std::string violations_text(const std::string& source) {
  std::string text;
  for (const RuleViolation& v : kernel_text_rule_violations(source))
    text += std::to_string(v.line) + ": " + v.what + "\n";
  return text;
}

// The compile process run by this build's layerbench (this test's executable is not it).
KernelCompileLimits helper_limits() {
  KernelCompileLimits limits;
  limits.program = LB_EXE;
  return limits;
}

// --- the rules ----------------------------------------------------------------------------------

TEST(KernelTextRules, EachRefusedConstructIsNamedWithItsLine) {
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"#include \"../solution/vector_add.cu\"\n", 1, "#include is not allowed in a kernel file"},
      {"\n#include <cuda_fp16.h>\n", 2, "#include is not allowed in a kernel file"},
      {"#include_next <x.h>\n", 1, "#include_next is not allowed in a kernel file"},
      {"#import \"x.cu\"\n", 1, "#import is not allowed in a kernel file"},
      {"#embed \"/etc/hostname\"\n", 1, "#embed is not allowed in a kernel file"},
      {"#ident \"x\"\n", 1, "#ident is not allowed in a kernel file"},
      // A path built by a macro: the directive itself is refused, whatever follows.
      {"#define X </proc/self/pagemap>\n#include X\n", 2, "#include is not allowed"},
      // A line splice between '#' and the name, the digraph, blanks and comments between them.
      {"int a;\n#\\\ninclude \"x\"\n", 2, "#include is not allowed"},
      {"%:include \"x\"\n", 1, "#include is not allowed"},
      {"  # /* c */ include \"x\"\n", 1, "#include is not allowed"},
      {"#if 0\n#include \"x\"\n#endif\n", 2, "#include is not allowed"},  // #if 0 hides nothing
      {"#if __has_include(\"/etc/passwd\")\n#endif\n", 1, "__has_include: not allowed in a kernel file"},
      {"#if 0\n#elif __has_include_next(<x>)\n#endif\n", 2, "__has_include_next: not allowed"},
      {"#if __has_embed(\"/etc/hostname\")\n#endif\n", 1, "__has_embed: not allowed"},
      {"#define P _Pragma(\"once\")\n", 1, "_Pragma: not allowed in a kernel file"},
      {"_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n", 1, "_Pragma: not allowed"},
      {"__pragma(once)\n", 1, "__pragma: not allowed"},
      {"#pragma once\n", 1, "#pragma once is not allowed in a kernel file (only #pragma unroll"},
      {"#pragma GCC dependency \"/etc/passwd\"\n", 1, "#pragma GCC is not allowed"},
      {"#pragma\n", 1, "#pragma is not allowed"},
      {"#pragma unroll; x\n", 1, "#pragma unroll takes only a constant"},
      {"#pragma nounroll 4\n", 1, "#pragma nounroll is not allowed"},
      {"#define C(a, b) a##b\n", 1, "token pasting (##) is not allowed"},
      {"#define C(a, b) a%:%:b\n", 1, "token pasting (##) is not allowed"},
      {"int _Pr\\u0061gma;\n", 1, "universal character names"},
      {"const char* s = R\"(\n#include \"x\"\n)\";\n", 1, "raw string literals are not allowed"},
      {"?\?=include \"x\"\n", 1, "trigraphs"},
  };
  for (const auto& [source, line, what] : cases) {
    const std::vector<RuleViolation> found = kernel_text_rule_violations(source);
    ASSERT_FALSE(found.empty()) << source;
    EXPECT_EQ(found[0].line, line) << source << violations_text(source);
    EXPECT_TRUE(has(found[0].what, what)) << source << "\n" << violations_text(source);
  }
}

TEST(KernelTextRules, TheSolutionsPragmasAndPlainDirectivesPass) {
  for (const char* source : {
           "#pragma unroll\nfor (int i = 0; i < 4; ++i) {}\n",
           "#pragma unroll 4\n",
           "#pragma unroll (TILE / 2)  // a constant\n",
           "#pragma unroll 1\n",
           "#pragma nounroll\n",
           "  #  pragma   unroll\n",
           "#define TILE 16\n#undef TILE\n#ifdef X\n#elif defined(Y)\n#else\n#endif\n#ifndef Z\n#endif\n",
           "#line 10 \"mine.cu\"\n# 12 \"mine.cu\"\n#\n",
           "#error not yet\n#warning careful\n",
           "// #include \"x\" _Pragma __has_include ##\n/* #include <y> */\n",
           "const char* s = \"#include \\\"x\\\" _Pragma ##\";\nchar c = '#';\n",
           "int a[2][2]; int b = a[0][1]; float f = 1e+5f; long long n = 1'000'000;\n",
           "#define STR(x) #x\nconst char* s = STR(a);\n",
           "asm(\"nop\"); __attribute__((unused)) int x; [[maybe_unused]] int y; extern int z;\n",
       })
    EXPECT_EQ(violations_text(source), "") << source;
}

TEST(KernelTextRules, TheMessageNamesTheFileAndLineOfEach) {
  const std::string message =
      kernel_text_rules_message("k.cu", kernel_text_rule_violations("int x;\n#include \"a\"\n_Pragma(\"x\")\n"));
  EXPECT_TRUE(has(message, "k.cu:2: #include is not allowed in a kernel file")) << message;
  EXPECT_TRUE(has(message, "k.cu:3: _Pragma: not allowed in a kernel file")) << message;
  EXPECT_EQ(kernel_text_rules_message("k.cu", {}), "");
}

// A planted file of the classes these rules and the limited compile hold: its expectation is one
// of their lines (the file must fail; any other planted file must pass the rules).
bool planted_to_fail_here(const fs::path& file) {
  const std::string text = slurp(file);
  const std::string first = text.substr(0, text.find('\n'));
  return has(first, "in a kernel file") || has(first, "not allowed in a kernel file") ||
         has(first, "did not compile: the compiler ran past");
}

// Every kernel-text lab's starter, solution and planted files (less those planted to break these
// rules), and every example workload folder's own kernels.cu (which `layerbench run --workload-dir`
// and lab 9's "ours" compile, and which are held to the same rules though they are not a student's).
TEST(KernelTextRules, EveryLabFileAndExampleWorkloadPasses) {
  int checked = 0;
  for (const LabSpec& spec : all_labs(kLabs)) {
    if (spec.runner->extension() != ".cu" || !spec.runner->takes_launch()) continue;  // Python, the host trip
    std::vector<fs::path> files = {spec.dir / spec.student_file};
    if (fs::exists(solution_file(spec))) files.push_back(solution_file(spec));
    for (const fs::path& planted : planted_files(spec.name))
      if (!planted_to_fail_here(planted)) files.push_back(planted);
    for (const fs::path& file : files) {
      EXPECT_EQ(violations_text(slurp(file)), "") << file;
      ++checked;
    }
  }
  for (const auto& folder : fs::directory_iterator(kRoot / "examples" / "workloads"))
    if (fs::exists(folder.path() / "kernels.cu")) {
      EXPECT_EQ(violations_text(slurp(folder.path() / "kernels.cu")), "") << folder.path();
      ++checked;
    }
  EXPECT_GT(checked, 30);
}

// --- the limited compile ------------------------------------------------------------------------

constexpr const char* kValidKernel =
    "extern \"C\" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {\n"
    "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

// 2^20 distinct class templates: minutes of NVRTC at gigabytes.
constexpr const char* kTemplateBomb =
    "template <int D, int I> struct T { static constexpr int v = T<D - 1, 2 * I>::v + T<D - 1, 2 * I + 1>::v; };\n"
    "template <int I> struct T<0, I> { static constexpr int v = I & 1; };\n"
    "extern \"C\" __global__ void k(int* out) { out[0] = T<19, 0>::v; }\n";

TEST(LimitedCompile, AValidKernelCompilesThroughTheHelperToACubin) {
  const driver::CompiledProgram compiled =
      compile_in_limited_process("v.cu", kValidKernel, kHostCheckSm, {}, /*use_cache=*/false, helper_limits());
  ASSERT_GE(compiled.cubin.size(), 4u);
  EXPECT_EQ(compiled.cubin.substr(0, 4), "\x7f" "ELF");
  EXPECT_TRUE(has(compiled.cubin, std::string("lab_vector_add") + '\0'));
  EXPECT_FALSE(compiled.from_cache);
  // The options reach NVRTC: line info and -G compile too.
  EXPECT_NO_THROW(compile_in_limited_process("v.cu", kValidKernel, kHostCheckSm, {"--generate-line-info"}, false,
                                             helper_limits()));
  EXPECT_NO_THROW(compile_in_limited_process("v.cu", kValidKernel, kHostCheckSm, {"-G"}, false, helper_limits()));
}

TEST(LimitedCompile, ACompileErrorIsNvrtcsLogNamingTheFile) {
  try {
    compile_in_limited_process("my/bad.cu", "extern \"C\" __global__ void k(float* c) {\n  c[0] = 1\n}\n",
                               kHostCheckSm, {}, false, helper_limits());
    ADD_FAILURE() << "compiled";
  } catch (const driver::CompileFailed& e) {
    EXPECT_TRUE(has(e.log(), "my/bad.cu(3): error")) << e.log();
  }
}

TEST(LimitedCompile, ATemplateBombStopsAtTheWallLimitWithOneLine) {
  KernelCompileLimits limits = helper_limits();
  limits.wall_s = 3;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    compile_in_limited_process("bomb.cu", kTemplateBomb, kHostCheckSm, {}, false, limits);
    ADD_FAILURE() << "compiled";
  } catch (const StudentCompileError& e) {
    EXPECT_EQ(std::string(e.what()), "did not compile: the compiler ran past 3 s");
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 8.0);
  EXPECT_EQ(ran_past_time_line(KernelCompileLimits::kWallSeconds), "did not compile: the compiler ran past 30 s");
}

// A preprocessor bomb: 10^8 tokens from eight macros, gigabytes of NVRTC's memory within seconds.
std::string macro_bomb() {
  std::string text = "#define A0 1,1,1,1,1,1,1,1,1,1\n";
  for (int i = 1; i <= 7; ++i) {
    const std::string previous = "A" + std::to_string(i - 1);
    text += "#define A" + std::to_string(i) + " " + previous;
    for (int k = 1; k < 10; ++k) text += "," + previous;
    text += "\n";
  }
  return text + "__device__ int big[] = {A7};\nextern \"C\" __global__ void k(int* o) { o[0] = big[0]; }\n";
}

// Under 1.5 GiB of address space (layerbench itself maps about 0.9 GiB as it starts: cuBLAS's
// libraries; the labs' solutions compile within about 1.05 GiB), NVRTC runs out within seconds.
TEST(LimitedCompile, AMemoryBombEndsInTheMemoryLine) {
  KernelCompileLimits limits = helper_limits();
  limits.address_space = 1536ull << 20;
  limits.wall_s = 25;
  try {
    compile_in_limited_process("bomb.cu", macro_bomb(), kHostCheckSm, {}, false, limits);
    ADD_FAILURE() << "compiled";
  } catch (const StudentCompileError& e) {
    EXPECT_EQ(std::string(e.what()), "did not compile: the compiler ran past 1536 MiB of memory");
  }
}

TEST(LimitedCompile, AnIncludeOfPagemapIsRefusedBeforeAnyCompile) {
  const LabSpec spec = find_lab(kLabs, "1");
  const fs::path dir = fs::temp_directory_path() / ("layerbench_kernel_text_" + std::to_string(getpid()));
  write(dir / "pagemap.cu", std::string("#include \"/proc/self/pagemap\"\n") + kValidKernel);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    compile_student_kernel(spec, dir / "pagemap.cu", kHostCheckSm, false, {.compile_helper = LB_EXE});
    ADD_FAILURE() << "compiled";
  } catch (const StudentCompileError& e) {
    EXPECT_TRUE(has(e.what(), "pagemap.cu:1: #include is not allowed in a kernel file")) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  fs::remove_all(dir);
}

// --- through `lab check` (CPU: the precheck refuses before the child) ----------------------------

class KernelTextCheck : public LabCliTest {};

TEST_F(KernelTextCheck, AnIncludeIsRefusedWithItsLineAndExitStatus1) {
  write(dir_ / "inc.cu", std::string("// mine\n#include \"/etc/hostname\"\n") + kValidKernel);
  const Outcome o = run("lab check 1 inc.cu");
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "inc.cu:2: #include is not allowed in a kernel file")) << o.out;
  EXPECT_FALSE(has(o.out + o.err, "error: cannot open")) << o.out;  // nothing opened it
}

// Each planted file of these classes gets its stated line and exit status 1 on the CPU (the GPU
// tests run them again: test_lab.cpp's PlantedOnTheGpu). The compile bomb takes the full 30 s.
TEST_F(KernelTextCheck, EachPlantedRuleBreakerAndCompileBombFailsWithItsLine) {
  int checked = 0;
  for (const PlantedSubmission& planted : planted_submissions()) {
    if (!planted_to_fail_here(planted.file)) continue;
    const std::string first = slurp(planted.file).substr(0, slurp(planted.file).find('\n'));
    const std::string expected = first.substr(first.find("expect: ") + 8);
    const auto t0 = std::chrono::steady_clock::now();
    const Outcome o = run("lab check " + planted.lab + " " + planted.file.string());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(o.code, 1) << planted.file << "\n" << o.out << o.err;
    EXPECT_TRUE(has(o.out, expected)) << planted.file << " expects '" << expected << "'\n" << o.out;
    EXPECT_LT(seconds, KernelCompileLimits::kWallSeconds + 15) << planted.file;
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

}  // namespace
