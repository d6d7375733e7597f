// `layerbench lab`: spec parsing, listing and starting labs, compile errors, feedback on wrong
// results, the watchdog (CPU, no GPU needed), and each lab's solution, skeleton and planted wrong
// submissions through `lab check` (GPU; skipped, with the reason, without one).
// Planted files (labs/<lab>/wrong/*.cu) start with "// expect: <substring of the feedback>".
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "common/cuda_check.h"
#include "common/gpu.h"
#include "common/stream.h"
#include "lab/grading/feedback.h"
#include "lab/child/child_mode.h"  // kStudentSamplingMaxSeconds
#include "lab/child/fresh_inputs.h"
#include "lab/grading/grade_writer.h"
#include "lab/grading/grading.h"
#include "lab/runners/kernel_runner.h"
#include "lab/runners/nvrtc/lab_kernel.h"
#include "lab/runners/triton/triton_kernel.h"  // triton_unavailable_reason
#include "lab/spec/lab_spec.h"
#include "lab/commands/sanitize.h"
#include "lab/child/watchdog.h"
#include "lab_test_support.h"
#include "variants/python/python_layer.h"
#include "variants/python/workload_folder.h"  // workload_folders_unavailable_reason
#include "workloads/problem.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;


class Lab : public LabCliTest {
 protected:
  // A copy of lab 01 in dir_/labs with some fields replaced, for the CLI's own tests.
  fs::path fixture_labs(double time_limit_s = 10) const {
    const fs::path labs = dir_ / "labs";
    fs::create_directories(labs);
    fs::copy(kLabs / "01-vector-add", labs / "01-vector-add", fs::copy_options::recursive);
    std::string json = slurp(labs / "01-vector-add" / "lab.json");
    const auto at = json.find("\"time_limit_s\"");
    json = json.substr(0, at) + "\"time_limit_s\": " + std::to_string(time_limit_s) + "\n}\n";
    write(labs / "01-vector-add" / "lab.json", json);
    write(labs / "01-vector-add" / "solution" / "vector_add.cu", "// the solution\n");
    return labs;
  }
};

// --- specs ------------------------------------------------------------------------------------

TEST(LabSpec, EveryLabInTheTreeParses) {
  if (!fs::exists(kLabs)) GTEST_SKIP() << "no labs/ folder in this tree";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kLabs)) {
    if (!fs::exists(entry.path() / "lab.json")) continue;
    // A lab on a workload folder is read by the embedded interpreter: where it cannot, it is left out.
    if (!workload_folders_unavailable_reason().empty() && has(slurp(entry.path() / "lab.json"), "\"workload_dir\"")) continue;
    ++count;
    const LabSpec spec = parse_lab_spec(entry.path() / "lab.json");
    EXPECT_EQ(spec.name, entry.path().filename().string());
    EXPECT_TRUE(fs::exists(spec.dir / spec.student_file)) << spec.name;
    EXPECT_TRUE(fs::exists(spec.dir / "README.md")) << spec.name;
    EXPECT_EQ(spec.check_sizes.size(), spec.check_size_texts.size());
    EXPECT_FALSE(spec.benchmark_sizes.empty());
  }
  const std::vector<LabSpec> labs = all_labs(kLabs);
  EXPECT_EQ(static_cast<int>(labs.size()), count);
  for (std::size_t i = 1; i < labs.size(); ++i) EXPECT_LE(labs[i - 1].order, labs[i].order);
  if (!labs.empty()) EXPECT_EQ(find_lab(kLabs, "1").name, labs[0].name);
}

TEST_F(Lab, BadSpecsGiveOneLineNamingFileAndField) {
  const std::string good = slurp(kLabs / "01-vector-add" / "lab.json");
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{"\"title\": \"Vector add: your first kernel\",", ""}, "'title'"},
      {{"\"workload\": \"vector_add\"", "\"workload\": \"fft\""}, "'workload'"},
      {{"[\"a\", \"b\", \"c\", \"n\"]", "[\"a\", \"b\", \"q\", \"n\"]"}, "'arguments[2]'"},
      {{"\"grid\": \"cover_n\"", "\"grid\": \"lots\""}, "'launch.grid'"},
      {{"\"block\": [256]", "\"block\": [2048]"}, "'launch.block[0]'"},
      {{"\"1000003\"", "\"ten\""}, "'check_sizes[5]'"},
      {{"\"output_starts\": \"poison\"", "\"output_starts\": \"ones\""}, "'output_starts'"},
      {{"\"time_limit_s\": 30", "\"time_limit_s\": \"30\""}, "'time_limit_s'"},
      {{"\"order\": 1,", "\"order\": 1"}, "not valid JSON"},
      {{"\"grid\": \"cover_n\"", "\"grid\": \"cover_mn\""}, "'launch.grid': cover_mn is for a workload sized MxN or MxNxK; vector_add's size is n"},
      {{"\"baseline_layer\": \"runtime\"", "\"baseline_layer\": \"warp\""}, "'baseline_layer': no layer named 'warp'"},
      {{"\"baseline_layer\": \"runtime\"", "\"baseline_layer\": \"cpu\""}, "'baseline_layer': the cpu layer runs on the CPU"},
      {{"\"baseline_layer\": \"runtime\",", ""}, "'baseline_layer': missing"},
      {{"{\"fraction_of\": \"runtime\", \"at_least\": 0.7,", "{\"fraction_of\": \"driver\", \"at_least\": 0.7,"},
       "'tiers[0].fraction_of': expected the baseline layer 'runtime', got 'driver'"},
  };
  for (const auto& [edit, field] : cases) {
    std::string text = good;
    const auto at = text.find(edit.first);
    ASSERT_NE(at, std::string::npos) << edit.first;
    text.replace(at, edit.first.size(), edit.second);
    const fs::path file = dir_ / "bad" / "lab.json";
    write(file, text);
    try {
      parse_lab_spec(file);
      ADD_FAILURE() << "accepted a spec with a bad " << field;
    } catch (const LabSpecError& e) {
      const std::string message = e.what();
      EXPECT_TRUE(has(message, file.string())) << message;
      EXPECT_TRUE(has(message, field)) << message;
      EXPECT_FALSE(has(message, "\n")) << message;
    }
  }
}

// Any workload whose descriptor names its kernel's parameters can be a lab: the arguments bind by
// the descriptor (ArgKind, C type), and cover_mn is the grid of a workload sized with rows.
TEST_F(Lab, AnyWorkloadWithKernelArgumentsCanBeALab) {
  int labs = 0;
  for (const Workload* w : all_workloads()) {
    const WorkloadDescriptor& d = w->descriptor();
    if (d.kernel_args.empty()) continue;
    if (dynamic_cast<const FolderWorkload*>(w)) continue;  // named by its folder: tests/test_lab_folder.cpp
    ++labs;
    nlohmann::json args = nlohmann::json::array();
    for (const KernelArg& a : d.kernel_args) args.push_back(a.name);
    const bool rows = d.size_form != SizeForm::kCount;
    const char* size = d.size_form == SizeForm::kCount ? "257" : d.size_form == SizeForm::kMatrix ? "17x33" : "17x33x65";
    const nlohmann::json spec_json = {
        {"title", "t"}, {"order", 1}, {"workload", d.name}, {"student_file", "k.cu"}, {"kernel", "k"},
        {"signature", "void k()"}, {"arguments", args}, {"output_starts", "poison"},
        {"launch", {{"block", rows ? nlohmann::json{16, 16} : nlohmann::json{256}}, {"grid", rows ? "cover_mn" : "cover_n"}}},
        {"check_sizes", {size}}, {"benchmark_sizes", {size}}, {"points", {{"check", 60}, {"performance", 40}}},
        {"baseline_layer", "runtime"}, {"tiers", {{{"fraction_of", "runtime"}, {"at_least", 0.5}, {"points", 40}}}},
        {"time_limit_s", 10}};
    const fs::path file = dir_ / d.name / "lab.json";
    write(file, spec_json.dump(2));
    if (!find_variant("runtime", d.name)) {
      EXPECT_THROW(parse_lab_spec(file), LabSpecError) << d.name << ": no runtime variant to time against";
      continue;
    }
    const LabSpec spec = parse_lab_spec(file);
    ASSERT_EQ(spec.bound_arguments.size(), d.kernel_args.size()) << d.name;
    for (std::size_t i = 0; i < d.kernel_args.size(); ++i) {
      const BoundArgument& b = spec.bound_arguments[i];
      EXPECT_EQ(b.arg.name, d.kernel_args[i].name);
      EXPECT_EQ(b.arg.kind, d.kernel_args[i].kind);
      const std::string& type = d.kernel_args[i].type;
      const PassedAs expected = type.ends_with("*") ? PassedAs::kPointer
                                : type == "float"   ? PassedAs::kFloat
                                : type == "int"     ? PassedAs::kInt
                                                    : PassedAs::kLongLong;
      EXPECT_EQ(b.as, expected) << d.name << " " << b.arg.name << " " << type;
    }
    EXPECT_EQ(spec.baseline, find_layer("runtime"));
    // The other grid rule is refused, naming the workload's size form.
    nlohmann::json other = spec_json;
    other["launch"]["grid"] = rows ? "cover_n" : "cover_mn";
    write(file, other.dump(2));
    try {
      parse_lab_spec(file);
      ADD_FAILURE() << d.name << " accepted the other grid rule";
    } catch (const LabSpecError& e) {
      EXPECT_TRUE(has(e.what(), "'launch.grid'") && has(e.what(), d.name)) << e.what();
    }
  }
  EXPECT_GE(labs, 4);
}

// --- list, start ------------------------------------------------------------------------------

TEST_F(Lab, HelpAtEachLevel) {
  EXPECT_TRUE(has(run("--help").out, "lab"));
  const Outcome lab = run("lab --help");
  EXPECT_EQ(lab.code, 0);
  for (const char* sub : {"list", "start", "check"}) EXPECT_TRUE(has(lab.out, sub)) << lab.out;
  EXPECT_FALSE(has(lab.out, "run-check")) << "the internal subcommand is hidden";
  const Outcome check = run("lab check --help");
  EXPECT_EQ(check.code, 0);
  EXPECT_TRUE(has(check.out, "Exit status")) << check.out;
  EXPECT_EQ(run("lab start --help").code, 0);
  EXPECT_EQ(run("lab").code, 2);
}

TEST_F(Lab, ListShowsLabsInOrder) {
  const Outcome o = run("lab list");
  EXPECT_EQ(o.code, 0) << o.err;
  std::size_t last = 0;
  for (const LabSpec& spec : all_labs(kLabs)) {
    const std::size_t at = o.out.find(spec.name);
    ASSERT_NE(at, std::string::npos) << spec.name << "\n" << o.out;
    EXPECT_GT(at, last);
    last = at;
    EXPECT_TRUE(has(o.out, spec.title)) << spec.title;
  }
  EXPECT_FALSE(has(o.out, "solutions"));
}

TEST_F(Lab, StartCopiesTheLabNeverSolutionsAndRefusesToOverwrite) {
  const fs::path labs = fixture_labs();
  const Outcome o = run("lab --labs " + labs.string() + " start 01 mine");
  ASSERT_EQ(o.code, 0) << o.err;
  std::set<std::string> copied;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "mine")) copied.insert(entry.path().filename());
  EXPECT_EQ(copied, (std::set<std::string>{"README.md", "lab.json", "vector_add.cu"}));
  EXPECT_EQ(slurp(dir_ / "mine" / "vector_add.cu"), slurp(labs / "01-vector-add" / "vector_add.cu"));
  EXPECT_NE(slurp(dir_ / "mine" / "vector_add.cu"), "// the solution\n");

  const Outcome again = run("lab --labs " + labs.string() + " start 1 mine");
  EXPECT_EQ(again.code, 2);
  EXPECT_TRUE(has(again.err, "already exists")) << again.err;
  EXPECT_EQ(std::count(again.err.begin(), again.err.end(), '\n'), 1) << again.err;

  // The default folder is ./<lab>, and the real tree's labs never bring their solutions along.
  ASSERT_EQ(run("lab start 01-vector-add").code, 0);
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "01-vector-add"))
    for (const LabSpec& spec : all_labs(kLabs))
      EXPECT_NE(slurp(entry.path()), slurp(solution_file(spec))) << entry.path() << " is a solution";

  const Outcome unknown = run("lab start 99");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_TRUE(has(unknown.err, "unknown lab '99'")) << unknown.err;
  EXPECT_EQ(run("lab start solutions").code, 2);
}

// --- compile ----------------------------------------------------------------------------------

TEST_F(Lab, SyntaxErrorNamesTheStudentsFileAndLine) {
  const LabSpec spec = find_lab(kLabs, "1");
  write(dir_ / "bad.cu", "extern \"C\" __global__ void lab_vector_add(const float* a, const float* b, float* c,\n"
                         "                                          long long n) {\n"
                         "  c[0] = a[0] + b[0]\n"
                         "}\n");
  constexpr bool no_cache = false;  // compile_student_kernel's use_cache: always NVRTC
  const StudentBuild helper{.compile_helper = LB_EXE};  // this test's executable is not layerbench
  try {
    compile_student_kernel(spec, dir_ / "bad.cu", kHostCheckSm, no_cache, helper);
    ADD_FAILURE() << "compiled";
  } catch (const StudentCompileError& e) {
    EXPECT_TRUE(has(e.what(), (dir_ / "bad.cu").string() + "(4): error")) << e.what();
  }
  // Through the command: exit 1, NVRTC's line with the path as the student typed it; no GPU needed.
  const Outcome o = run("lab check 1 bad.cu");
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "bad.cu(4): error")) << o.out;
  EXPECT_TRUE(has(o.out, "does not compile")) << o.out;
  EXPECT_FALSE(has(o.out, "kernels.cu")) << o.out;

  write(dir_ / "host.cu", "#include <vector>\nextern \"C\" __global__ void lab_vector_add() {}\n");
  // An #include is refused by the kernel-text rules before any compiler opens it (test_lab_kernel_text.cpp).
  EXPECT_TRUE(has(run("lab check 1 host.cu").out, "host.cu:1: #include is not allowed in a kernel file"));

  write(dir_ / "renamed.cu", "extern \"C\" __global__ void vadd(float* c) { c[0] = 1; }\n");
  EXPECT_THROW(compile_student_kernel(spec, dir_ / "renamed.cu", kHostCheckSm, no_cache, helper),
               StudentCompileError);
  write(dir_ / "mangled.cu", "__global__ void lab_vector_add(float* c) { c[0] = 1; }\n");
  try {
    compile_student_kernel(spec, dir_ / "mangled.cu", kHostCheckSm, no_cache, helper);
    ADD_FAILURE() << "compiled";
  } catch (const StudentCompileError& e) {
    EXPECT_TRUE(has(e.what(), "extern \"C\"")) << e.what();
  }
  EXPECT_EQ(run("lab check 1 missing.cu").code, 2);
  EXPECT_EQ(run("lab check 42 bad.cu").code, 2);
}

// A file whose name starts with "-" is a file, to the command, the child and NVRTC alike (NVRTC
// reads a program's name as one of its own arguments): its compile error names it, no GPU needed.
TEST_F(Lab, AFileNamedLikeAnOptionIsStillAFile) {
  write(dir_ / "-bad.cu", "extern \"C\" __global__ void lab_vector_add(const float* a, const float* b, float* c,\n"
                          "                                          long long n) {\n"
                          "  c[0] = a[0] +;\n"
                          "}\n");
  const Outcome o = run("lab check 1 -- -bad.cu");
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "-bad.cu(3): error")) << o.out;
  EXPECT_FALSE(has(o.out + o.err, "invalid option")) << o.out << o.err;
}

TEST(LabCompile, EverySkeletonSolutionAndPlantedFileCompiles) {
  constexpr bool no_cache = false;  // compile_student_kernel's use_cache: always NVRTC
  const StudentBuild helper{.compile_helper = LB_EXE};  // this test's executable is not layerbench
  for (const LabSpec& spec : all_labs(kLabs)) {
    if (spec.runner->extension() == ".py") continue;  // Numba: tests/test_lab_python.cpp (PyCUDA's, cuda.core's: C++)
    if (!spec.runner->takes_launch()) continue;  // host code, nvcc's: tests/test_lab_transfer.cpp
    EXPECT_NO_THROW(compile_student_kernel(spec, spec.dir / spec.student_file, kHostCheckSm, no_cache, helper))
        << spec.name;
    const fs::path solution = solution_file(spec);
    if (fs::exists(solution)) EXPECT_NO_THROW(compile_student_kernel(spec, solution, kHostCheckSm, no_cache, helper));
    for (const fs::path& planted : planted_files(spec.name)) {
      // The kernel-text rule breakers and the compile bomb fail here, by design: test_lab_kernel_text.cpp.
      const std::string text = slurp(planted);
      const std::string expectation = text.substr(0, text.find('\n'));
      if (has(expectation, "in a kernel file") || has(expectation, "did not compile: the compiler ran past")) continue;
      EXPECT_NO_THROW(compile_student_kernel(spec, planted, kHostCheckSm, no_cache, helper)) << planted;
    }
  }
}

// --- feedback on synthetic results -------------------------------------------------------------

struct Synthetic {
  const Workload* workload;
  HostProblem problem;
  Reference reference;
  HostBuffer got;  // the right answer, rounded to float; tests break it
};
Synthetic synthetic(const std::string& workload, Shape shape) {
  Synthetic s{find_workload(workload), {}, {}, {}};
  s.problem = s.workload->make_problem(shape, 1234);
  s.reference = s.workload->reference(s.problem);
  for (double e : s.reference.expected) s.got.push_back(static_cast<float>(e));
  return s;
}
std::string explain(const Synthetic& s) {
  return explain_result(*s.workload, s.problem.shape, s.got, s.problem.output, s.reference);
}

// The student's timed samples are given their host work's time (a workload folder's draw and every
// sample's check) for the rule's minimum of samples, but never more than their share of the timing
// child's limit: lab 10 at 65536x1024 on an H100 cost seconds a sample, the cap widened past the
// whole limit, and the model solution's grade stopped as "did not finish" (P27).
TEST(LabTiming, TheStudentsSamplingStaysInsideItsShareOfTheTimingLimit) {
  StoppingRule rule;  // the default rule: a 1 s cap, at least 10 samples
  EXPECT_DOUBLE_EQ(student_time_cap_s(rule, 0.0), rule.max_time_s);
  EXPECT_DOUBLE_EQ(student_time_cap_s(rule, 5.0), rule.max_time_s + 12 * 0.005);  // 12 samples' checks
  EXPECT_DOUBLE_EQ(student_time_cap_s(rule, 6000.0), kStudentSamplingMaxSeconds);
  EXPECT_LT(kStudentSamplingMaxSeconds, kTimingSecondsPerBenchmarkSize);
  rule.max_time_s = 3.0;  // run --thorough's cap is kept; widened, it is bounded the same way
  EXPECT_DOUBLE_EQ(student_time_cap_s(rule, 0.0), 3.0);
  EXPECT_DOUBLE_EQ(student_time_cap_s(rule, 1e6), kStudentSamplingMaxSeconds);
}

TEST(LabFeedback, RightAnswerHasNoFeedbackAndVerifyAgrees) {
  for (const auto& [w, shape] : std::vector<std::pair<std::string, Shape>>{
           {"vector_add", {1, 1001, 1}}, {"saxpy", {1, 1001, 1}}, {"reduce", {1, 1001, 1}}, {"matmul", {5, 7, 9}}}) {
    const Synthetic s = synthetic(w, shape);
    EXPECT_EQ(explain(s), "") << w;
    EXPECT_TRUE(s.workload->verify(s.problem, s.got).passed) << w;
  }
}

TEST(LabFeedback, UnwrittenTailIsAGridThatDoesNotCoverN) {
  Synthetic s = synthetic("vector_add", {1, 1000003, 1});
  for (std::size_t i = 1000000; i < s.got.size(); ++i) s.got[i] = NAN;
  const std::string text = explain(s);
  EXPECT_TRUE(has(text, "element 1000000 is NaN, expected ")) << text;
  EXPECT_TRUE(has(text, "elements from 1000000 on were never written (still the poison): does your grid cover n?"))
      << text;
  EXPECT_FALSE(s.workload->verify(s.problem, s.got).passed);
}

TEST(LabFeedback, SaxpyUnwrittenElementsKeepY) {
  Synthetic s = synthetic("saxpy", {1, 5000, 1});
  for (std::size_t i = 4096; i < s.got.size(); ++i) s.got[i] = s.problem.output[i];
  EXPECT_TRUE(has(explain(s), "elements from 4096 on were never written (still their starting values)")) << explain(s);
}

TEST(LabFeedback, OnlyTheLastNMod4ElementsWrong) {
  Synthetic s = synthetic("vector_add", {1, 1003, 1});
  for (std::size_t i = 1000; i < 1003; ++i) s.got[i] += 1.0f;
  EXPECT_TRUE(has(explain(s), "only the last n % 4 = 3 elements are wrong")) << explain(s);
}

TEST(LabFeedback, ScatteredWrongAndNaN) {
  Synthetic s = synthetic("vector_add", {1, 1000, 1});
  s.got[10] += 1.0f;
  s.got[500] += 1.0f;
  const std::string text = explain(s);
  EXPECT_TRUE(has(text, "element 10 is ")) << text;
  EXPECT_TRUE(has(text, "2 of 1000 elements are wrong")) << text;
  Synthetic y = synthetic("saxpy", {1, 100, 1});
  y.got[3] = NAN;
  EXPECT_TRUE(has(explain(y), "element 3 is NaN")) << explain(y);
  EXPECT_TRUE(has(explain(y), "NaN where no poison was left")) << explain(y);
}

TEST(LabFeedback, AOneElementOutputIsAnElementNotASum) {
  Synthetic s = synthetic("vector_add", {1, 1, 1});
  s.got[0] = NAN;
  EXPECT_TRUE(has(explain(s), "element 0 is NaN, expected ")) << explain(s);
  EXPECT_FALSE(has(explain(s), "sum")) << explain(s);
  // Every element wrong is not "the last n % 4" (n = 1 or 3 has no float4 part to blame).
  EXPECT_TRUE(has(explain(s), "1 of 1 elements were never written")) << explain(s);
  EXPECT_FALSE(has(explain(s), "n % 4")) << explain(s);
}

TEST(LabFeedback, ReduceSumAsAPercentage) {
  Synthetic s = synthetic("reduce", {1, 100000, 1});
  // Terms of both signs that mostly cancel (reduce's inputs are positive; a reference of this kind
  // stands in): the sum is small beside the sum of |x|, so the error is measured by that.
  s.reference.expected[0] = 0.1 * s.reference.scale[0];
  s.got[0] = static_cast<float>(s.reference.expected[0] + 0.01 * s.reference.scale[0]);
  EXPECT_TRUE(has(explain(s), "1% of the sum of |x|")) << explain(s);
  EXPECT_FALSE(has(explain(s), "of the expected one")) << explain(s);
  // A sum that is most of the inputs' size: the ratio to it says how much is missing.
  s.reference.expected[0] = 0.9 * s.reference.scale[0];
  s.got[0] = static_cast<float>(0.5 * s.reference.expected[0]);
  EXPECT_TRUE(has(explain(s), "wrong sum: got ")) << explain(s);
  EXPECT_TRUE(has(explain(s), "the sum is about 50% of the expected one")) << explain(s);
  s.got[0] = NAN;
  EXPECT_TRUE(has(explain(s), "never written")) << explain(s);
}

TEST(LabFeedback, MatmulNamesRowAndColumnAndUncoveredColumns) {
  Synthetic s = synthetic("matmul", {20, 40, 8});
  for (std::int64_t i = 0; i < 20; ++i)
    for (std::int64_t j = 32; j < 40; ++j) s.got[i * 40 + j] = NAN;
  const std::string text = explain(s);
  EXPECT_TRUE(has(text, "element 32 (row 0, column 32) is NaN")) << text;
  EXPECT_TRUE(has(text, "columns from 32 on were never written")) << text;
  EXPECT_TRUE(has(text, "cover N")) << text;
  Synthetic r = synthetic("matmul", {20, 40, 8});
  for (std::size_t i = 16 * 40; i < r.got.size(); ++i) r.got[i] = NAN;
  EXPECT_TRUE(has(explain(r), "rows from 16 on were never written")) << explain(r);
}

TEST(LabFeedback, WrongOnlyWhereSizeIsNotAMultipleOfTheBlock) {
  const auto n = [](std::int64_t v) { return Shape{1, v, 1}; };
  EXPECT_TRUE(has(hint_across_sizes({{n(256), true}, {n(257), false}, {n(512), true}, {n(1), false}}, false, 256, 1),
                  "not a multiple of the block size (256)"));
  EXPECT_EQ(hint_across_sizes({{n(256), false}, {n(257), false}}, false, 256, 1), "");
  EXPECT_EQ(hint_across_sizes({{n(256), true}, {n(257), true}}, false, 256, 1), "");
  EXPECT_EQ(hint_across_sizes({{n(257), false}}, false, 256, 1), "") << "no multiple passed: no evidence";
}

// --- watchdog ---------------------------------------------------------------------------------

TEST(LabWatchdog, StopsAChildThatHangs) {
  const ChildOutcome o = run_with_time_limit({"sh", "-c", "echo started; sleep 30"}, 0.5);
  EXPECT_TRUE(o.timed_out);
  EXPECT_LT(o.elapsed_s, 5.0);
  EXPECT_EQ(o.out, "started\n");
}

TEST(LabWatchdog, CollectsOutputExitStatusAndSignal) {
  const ChildOutcome o = run_with_time_limit({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  EXPECT_FALSE(o.timed_out);
  EXPECT_TRUE(o.exited);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.out, "out\n");
  EXPECT_EQ(o.err, "err\n");
  const ChildOutcome crash = run_with_time_limit({"sh", "-c", "kill -SEGV $$"}, 10);
  EXPECT_FALSE(crash.exited);
  EXPECT_EQ(crash.signal, SIGSEGV);
  EXPECT_THROW(run_with_time_limit({"/no/such/program"}, 1), std::runtime_error);
}

// `lab check` with a stand-in child (LAYERBENCH_LAB_RUNNER): a hang is stopped at the lab's time
// limit and reported on the size it was running; a crash is reported as one.
TEST_F(Lab, CheckReportsAHangingAndACrashingChild) {
  const fs::path labs = fixture_labs(/*time_limit_s=*/1);
  write(dir_ / "hang.sh", "#!/bin/sh\necho '{\"size\": \"1\", \"passed\": true}' >&3\nsleep 30\n");
  write(dir_ / "crash.sh", "#!/bin/sh\nkill -SEGV $$\n");
  fs::permissions(dir_ / "hang.sh", fs::perms::owner_all);
  fs::permissions(dir_ / "crash.sh", fs::perms::owner_all);
  const std::string solution = solution_file("01-vector-add", "vector_add.cu").string();
  const auto started = std::chrono::steady_clock::now();
  const Outcome hang = run("lab --labs " + labs.string() + " check 1 " + solution, "LAYERBENCH_LAB_RUNNER=" + (dir_ / "hang.sh").string());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10.0);
  EXPECT_EQ(hang.code, 1) << hang.out << hang.err;
  EXPECT_TRUE(has(hang.out, "  PASS  n = 1\n")) << hang.out;
  EXPECT_TRUE(has(hang.out, "  FAIL  n = 127: stopped after 1 s: the kernel did not finish (an infinite loop?)")) << hang.out;
  EXPECT_TRUE(has(hang.out, "  SKIP  n = 255")) << hang.out;
  EXPECT_TRUE(has(hang.out, "FAIL: 1 of 7 sizes passed")) << hang.out;

  const Outcome crash = run("lab --labs " + labs.string() + " check 1 " + solution, "LAYERBENCH_LAB_RUNNER=" + (dir_ / "crash.sh").string());
  EXPECT_EQ(crash.code, 1);
  EXPECT_TRUE(has(crash.out, "FAIL  n = 1: the check crashed (signal 11")) << crash.out;
}

TEST_F(Lab, CheckWithoutAGpuSaysSoAndExits3) {
  if (gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is present: the GPU tests below run instead";
  const Outcome o = run("lab check 1 " + solution_file("01-vector-add", "vector_add.cu").string());
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_TRUE(has(o.out, "cannot run the check here: no usable GPU")) << o.out;
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << o.out;
}

// --- grading arithmetic, on synthetic timings ---------------------------------------------------

Timing timed(double ms, double gbps = 0) { return Timing{ms, 0.001, gbps, 0, 50}; }

TEST(LabGrading, CheckPointsAreTheShareOfSizesPassed) {
  const LabSpec spec = find_lab(kLabs, "1");  // check 60, performance 40, tiers 0.7 / 0.6 / 0.3
  EXPECT_EQ(check_points(spec, 7, 7), 60);
  EXPECT_EQ(check_points(spec, 0, 7), 0);
  EXPECT_DOUBLE_EQ(check_points(spec, 5, 7), 42.9);  // 60 * 5/7 = 42.857, to one decimal
}

TEST(LabGrading, GeometricMeanAndTiers) {
  EXPECT_NEAR(geometric_mean({0.5, 2.0}), 1.0, 1e-12);
  EXPECT_NEAR(geometric_mean({0.9}), 0.9, 1e-12);
  EXPECT_EQ(geometric_mean({}), 0.0);
  EXPECT_EQ(geometric_mean({1.0, 0.0}), 0.0);
  const LabSpec spec = find_lab(kLabs, "1");
  ASSERT_NE(tier_for(spec, 0.7), nullptr);
  EXPECT_EQ(tier_for(spec, 0.7)->points, 40);   // at the bound: reached
  EXPECT_EQ(tier_for(spec, 0.6999)->points, 25);
  EXPECT_EQ(tier_for(spec, 0.3)->points, 10);
  EXPECT_EQ(tier_for(spec, 0.29), nullptr);
}

TEST(LabGrading, SpeedIsTheGeometricMeanOfOursOverYours) {
  LabSpec spec = find_lab(kLabs, "1");
  const Shape size = spec.benchmark_sizes.front();
  spec.benchmark_sizes = {size, size};
  // 0.5 at one size, 0.9 at the other: a mean of 0.67, tier 0.6 (25 points), not the 0.7 an
  // arithmetic mean would give (tier 0.7).
  const Grade g = grade_submission(spec, "a.cu", 7, 7,
                                   {{"A", timed(2.0, 1500), timed(1.0), ""}, {"B", timed(1.0, 2700), timed(0.9), ""}},
                                   {"copy bandwidth", "GB/s", 3000});
  EXPECT_EQ(g.outcome, GradeOutcome::kGraded);
  ASSERT_TRUE(g.speed);
  EXPECT_NEAR(*g.speed, std::sqrt(0.5 * 0.9), 1e-12);
  EXPECT_NEAR(*g.ceiling_fraction, std::sqrt(0.5 * 0.9), 1e-12);
  EXPECT_EQ(g.performance_points, 25);
  EXPECT_EQ(g.points(), 85);
  const std::string all = [&] { std::string t; for (const auto& l : g.feedback) t += l + "\n"; return t; }();
  EXPECT_TRUE(has(all, "your kernel runs at 0.67 of the speed of ours (the runtime layer), 67% of the GPU's copy bandwidth"))
      << all;
  EXPECT_TRUE(has(all, "the next tier, at least 0.70 of ours, is worth 40")) << all;

  const nlohmann::json j = JsonWriter::submission(spec, g);
  EXPECT_EQ(j["points"], 85);
  EXPECT_EQ(j["performance"]["tier_at_least"], 0.6);
  EXPECT_EQ(j["performance"]["benchmarks"].size(), 2u);
  EXPECT_EQ(j["check"]["points"], 60);
  const std::string row = CsvWriter::row(spec, g);
  EXPECT_TRUE(row.starts_with("a.cu,01-vector-add,graded,85,100,7,7,60,0.6708,0.6708,0.6,25,")) << row;
  const std::string header = CsvWriter::header();
  const std::string before_feedback = row.substr(0, row.find('"'));
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), std::count(before_feedback.begin(), before_feedback.end(), ','))
      << "the feedback, last, is quoted (it has commas): " << row;
  EXPECT_TRUE(row.ends_with("kernel)\"\n")) << row;
}

TEST(LabGrading, NoPerformancePointsUnlessEverySizePassedAndWasTimed) {
  const LabSpec spec = find_lab(kLabs, "1");
  const Grade failed = grade_submission(spec, "a.cu", 6, 7, {}, {});
  EXPECT_EQ(failed.outcome, GradeOutcome::kCheckFailed);
  EXPECT_DOUBLE_EQ(failed.points(), 51.4);
  EXPECT_FALSE(failed.speed);

  const Grade wrong_when_big = grade_submission(spec, "a.cu", 7, 7, {{"67108864", std::nullopt, std::nullopt, "element 5 is 0"}}, {});
  EXPECT_EQ(wrong_when_big.outcome, GradeOutcome::kGraded);
  EXPECT_EQ(wrong_when_big.performance_points, 0);
  EXPECT_EQ(wrong_when_big.points(), 60);
  EXPECT_FALSE(wrong_when_big.speed);
  EXPECT_TRUE(has(wrong_when_big.feedback.front(), "at 67108864: element 5 is 0")) << wrong_when_big.feedback.front();

  const Grade slow = grade_submission(spec, "a.cu", 7, 7, {{"67108864", timed(10.0), timed(1.0), ""}}, {});
  EXPECT_EQ(slow.performance_points, 0);
  EXPECT_EQ(slow.tier, nullptr);
  EXPECT_FALSE(slow.ceiling_fraction) << "no ceiling measured: no fraction claimed";
}

// `lab grade` with a stand-in child that answers as the real one does: the parent's parsing, the
// grade it prints, the JSON, CSV and markdown files, several submissions in one call.
TEST_F(Lab, GradeWritesJsonCsvAndMarkdownForEverySubmission) {
  const fs::path labs = fixture_labs();
  const std::string script = stand_in_child(
      lab1_every_size_passed(), test_environment_line(),
      "{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.3, \"gbps\": 2684.4, \"samples\": 40}, "
      "\"runtime\": {\"median_ms\": 0.27, \"gbps\": 2982.6, \"samples\": 40}, \"samples_verified\": 4, "
      "\"input_reset_ms\": 0.11, \"sample_verify_ms\": 9.5}\n");
  write(dir_ / "child.sh", script);
  fs::permissions(dir_ / "child.sh", fs::perms::owner_all);
  const std::string solution = solution_file("01-vector-add", "vector_add.cu").string();
  const std::string skeleton = (kLabs / "01-vector-add" / "vector_add.cu").string();
  write(dir_ / "broken.cu", "extern \"C\" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {\n  c[0] = a[0] +;\n}\n");
  const Outcome o = run("lab --labs " + labs.string() + " grade 1 " + solution + " " + (dir_ / "broken.cu").string() +
                            " --json g.json --csv g.csv --markdown g.md",
                        "LAYERBENCH_LAB_RUNNER=" + (dir_ / "child.sh").string());
  EXPECT_EQ(o.code, 1) << "one submission did not compile\n" << o.out << o.err;
  EXPECT_TRUE(has(o.out, "GRADE " + solution + ": 100 / 100  (check 60 / 60, performance 40 / 40)")) << o.out;
  EXPECT_TRUE(has(o.out, "n = 67108864: yours 0.3000 ms, ours 0.2700 ms: 0.90 of ours")) << o.out;
  // What each timed sample's fresh inputs cost, outside the timed region (lab/child/fresh_inputs.h).
  // and its verification (every sample's).
  EXPECT_TRUE(has(o.out, "(fresh inputs: 0.110 ms, verification: 9.50 ms per sample, outside the timed region)")) << o.out;
  EXPECT_TRUE(has(o.out, "broken.cu(2): error")) << o.out;
  EXPECT_TRUE(has(o.out, "broken.cu: 0 / 100  (check 0 / 60)")) << o.out;

  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "g.json"));
  EXPECT_EQ(j["gpu"], "Test GPU");
  ASSERT_EQ(j["submissions"].size(), 2u);
  EXPECT_EQ(j["submissions"][0]["points"], 100);
  EXPECT_NEAR(j["submissions"][0]["performance"]["speed_vs_runtime"].get<double>(), 0.9, 1e-9);
  EXPECT_NEAR(j["submissions"][0]["performance"]["fraction_of_ceiling"].get<double>(), 2684.4 / 3000, 1e-9);
  const nlohmann::json& timed = j["submissions"][0]["performance"]["benchmarks"][0];
  EXPECT_EQ(timed["samples_verified"], 4) << timed.dump(2);  // the fresh inputs' verified samples
  EXPECT_EQ(timed["input_reset_ms"], 0.11) << timed.dump(2);
  EXPECT_EQ(timed["sample_verify_ms"], 9.5) << timed.dump(2);
  EXPECT_FALSE(timed.contains("handover_ms")) << timed.dump(2);  // lab 8's alone
  EXPECT_EQ(j["submissions"][1]["outcome"], "did not compile");
  const std::string csv = slurp(dir_ / "g.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_TRUE(has(csv, solution + ",01-vector-add,graded,100,100,7,7,60,0.9000,0.8948,0.7,40,")) << csv;
  const std::string md = slurp(dir_ / "g.md");
  EXPECT_TRUE(has(md, "Graded ") && has(md, " on Test GPU; the GPU's copy bandwidth, measured in the same run: 3000 GB/s")) << md;
  EXPECT_TRUE(has(md, "| 67108864 | 0.3000 | 0.2700 | 2684 | 2983 | 0.90 | 89% |")) << md;

  const Outcome missing = run("lab --labs " + labs.string() + " grade 1 " + solution + " no_such.cu");
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(has(missing.err, "no such file: no_such.cu")) << missing.err;
  (void)skeleton;
}

// --- on a GPU: solutions pass, skeletons and planted files fail with their expected cause ------

// Why `lab`'s checks cannot run here although a GPU can: its runner's compiler is missing (lab 10's
// Triton, in the chosen Python; `lab check` exits 3 saying so, test_lab_triton's TritonCheck).
// Empty when nothing is.
std::string runner_missing_here(const std::string& lab) {
  return find_lab(kLabs, lab).runner->name() == "triton" ? triton_unavailable_reason() : "";
}

// One test per lab (EachLab/LabSolutionOnTheGpu.*/<lab>), so that ctest runs the labs side by side.
class LabSolutionOnTheGpu : public Lab, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    Lab::SetUp();
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
    if (const std::string why = runner_missing_here(GetParam()); !why.empty()) GTEST_SKIP() << why;
    spec_ = find_lab(kLabs, GetParam());
  }
  LabSpec spec_;
};

TEST_P(LabSolutionOnTheGpu, SolutionPassesSkeletonFails) {
  const Outcome pass = run("lab check " + spec_.name + " " + solution_file(spec_).string());
  EXPECT_EQ(pass.code, 0) << spec_.name << "\n" << pass.out << pass.err;
  const Outcome skeleton = run("lab check " + spec_.name + " " + (spec_.dir / spec_.student_file).string());
  EXPECT_EQ(skeleton.code, 1) << spec_.name << "\n" << skeleton.out << skeleton.err;
}

// Each solution passes every size and is timed at every benchmark size; whether it reaches the top
// tier is a figure for the closing note (`lab grade` on the device), not a timed test.
TEST_P(LabSolutionOnTheGpu, GradeTimesTheSolution) {
  const Outcome o = run("lab grade " + spec_.name + " " + solution_file(spec_).string() + " --json grade.json");
  ASSERT_EQ(o.code, 0) << spec_.name << "\n" << o.out << o.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "grade.json"));
  const nlohmann::json& g = j["submissions"][0];
  EXPECT_EQ(g["outcome"], "graded") << g.dump(2);
  EXPECT_EQ(g["check"]["points"], spec_.check_points) << g.dump(2);
  EXPECT_GT(g["performance"]["speed_vs_runtime"].get<double>(), 0.0) << g.dump(2);
  EXPECT_EQ(g["performance"]["benchmarks"].size(), spec_.benchmark_sizes.size()) << g.dump(2);
  // Every timed sample (lab 8: every timed trip) is verified, and what that cost is measured.
  for (const nlohmann::json& b : g["performance"]["benchmarks"])
    EXPECT_GT(b.value("sample_verify_ms", 0.0), 0.0) << spec_.name << "\n" << b.dump(2);
  std::printf("%s: %s\n", spec_.name.c_str(), o.out.substr(o.out.find("GRADE")).c_str());
}

// Every committed grade of a lab's solution (labs/*/expected/<gpu>.solution.json, `lab grade --json`
// on a real GPU) is full marks, and its speed clears the lab's top tier as lab.json sets it now by
// at least 5%, room for one grade's noise: a tier moved above what a solution measured on some GPU,
// or a solution that lost points there, fails here without a GPU (docs/labs.md, the tiers table).
TEST(LabCalibration, EveryCommittedSolutionGradeIsFullMarksWithRoomUnderTheTopTier) {
  int checked = 0, unreadable = 0;
  for (const fs::path& path : expected_grade_files()) {
    if (path.filename().string().find(".solution.") == std::string::npos) continue;
    const nlohmann::json j = nlohmann::json::parse(slurp(path));
    if (!lab_unreadable_here(j.at("lab").get<std::string>()).empty()) {  // a build without the interpreter
      ++unreadable;
      continue;
    }
    const LabSpec spec = find_lab(kLabs, j.at("lab").get<std::string>());
    ASSERT_FALSE(spec.tiers.empty()) << path;
    for (const nlohmann::json& s : j.at("submissions")) {
      ++checked;
      EXPECT_EQ(s.at("points").get<double>(), s.at("max_points").get<double>()) << path;
      const double speed = s.at("performance").at("speed_vs_runtime").get<double>();
      EXPECT_GE(speed, 1.05 * spec.tiers.front().at_least)
          << path << ": the solution measured " << speed << " of ours there; the top tier is "
          << spec.tiers.front().at_least;
    }
  }
  EXPECT_GE(checked + unreadable, 9) << "every lab has its solution's grade on at least one GPU";
}

INSTANTIATE_TEST_SUITE_P(EachLab, LabSolutionOnTheGpu, ::testing::ValuesIn(checkable_lab_names()),
                         [](const auto& info) { return test_param_name(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LabSolutionOnTheGpu);  // a tree without labs/

// What a planted file must get, from its first lines ("// " or "# " before each):
//   expect: TEXT              `lab check` fails (exit 1) and says TEXT
//   expect-check: pass        `lab check` passes
//   expect-sanitize: TEXT     `lab check --sanitize` fails and says TEXT (compute-sanitizer's finding)
//   expect-feedback: TEXT     `lab grade`'s feedback says TEXT (what limits a graded trip, lab 8)
//   expect-grade: OUTCOME CHECK PERF_LO PERF_HI
//                             `lab grade`: the outcome ("graded", "check-failed" for "check failed"),
//                             the check's points, and the performance points within [PERF_LO, PERF_HI]
//                             (a range: which tier a speed falls in is a measurement)
struct PlantedExpectations {
  std::string check_fails_with, sanitize_fails_with, grade_says;
  bool check_passes = false;
  std::optional<std::string> grade_outcome;
  double check_points = 0, performance_lo = 0, performance_hi = 0;
};
PlantedExpectations planted_expectations(const fs::path& file) {
  PlantedExpectations e;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.find("expect");
    if (at == std::string::npos || at > 3) break;
    const std::string rest = line.substr(at);
    const auto value = [&rest](const std::string& key) { return rest.substr(key.size()); };
    if (rest.rfind("expect: ", 0) == 0) e.check_fails_with = value("expect: ");
    else if (rest.rfind("expect-check: pass", 0) == 0) e.check_passes = true;
    else if (rest.rfind("expect-sanitize: ", 0) == 0) e.sanitize_fails_with = value("expect-sanitize: ");
    else if (rest.rfind("expect-feedback: ", 0) == 0) e.grade_says = value("expect-feedback: ");
    else if (rest.rfind("expect-grade: ", 0) == 0) {
      std::istringstream words(value("expect-grade: "));
      std::string outcome;
      words >> outcome >> e.check_points >> e.performance_lo >> e.performance_hi;
      std::replace(outcome.begin(), outcome.end(), '-', ' ');
      e.grade_outcome = outcome;
    }
  }
  return e;
}

TEST(LabPlanted, EveryPlantedFileSaysWhatItMustGet) {
  for (const auto& [lab, file] : planted_submissions()) {
    const PlantedExpectations e = planted_expectations(file);
    EXPECT_NE(e.check_fails_with.empty(), !e.check_passes) << file << ": exactly one of expect: / expect-check: pass";
  }
}

// "<lab>_<file>", e.g. 08_transfer_too_few_chunks.
std::string planted_test_name(const ::testing::TestParamInfo<PlantedSubmission>& info) {
  return test_param_name(info.param.lab + "_" + info.param.file.stem().string());
}

// One test per planted file (EachPlantedFile/PlantedOnTheGpu.*/<lab>_<file>), side by side.
class PlantedOnTheGpu : public Lab, public ::testing::WithParamInterface<PlantedSubmission> {
 protected:
  void SetUp() override {
    Lab::SetUp();
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
    if (const std::string why = runner_missing_here(GetParam().lab); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(PlantedOnTheGpu, GetsItsCheckVerdict) {
  const auto& [lab, file] = GetParam();
  const PlantedExpectations e = planted_expectations(file);
  const Outcome o = run("lab check " + lab + " " + file.string());
  EXPECT_EQ(o.code, e.check_passes ? 0 : 1) << file << "\n" << o.out << o.err;
  if (!e.check_fails_with.empty())
    EXPECT_TRUE(has(o.out, e.check_fails_with)) << file << " expects '" << e.check_fails_with << "'\n" << o.out;
}

INSTANTIATE_TEST_SUITE_P(EachPlantedFile, PlantedOnTheGpu, ::testing::ValuesIn(planted_submissions()),
                         planted_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PlantedOnTheGpu);

TEST_F(Lab, PlantedSubmissionsUnderTheSanitizerOnTheGpu) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  if (const ToolLookup tool = find_cuda_tool("compute-sanitizer"); !tool.found()) GTEST_SKIP() << tool.why_not;
  int checked = 0;
  for (const auto& [lab, file] : planted_submissions()) {
    const PlantedExpectations e = planted_expectations(file);
    if (e.sanitize_fails_with.empty()) continue;
    const Outcome o = run("lab check " + lab + " " + file.string() + " --sanitize");
    EXPECT_EQ(o.code, 1) << file << "\n" << o.out << o.err;
    EXPECT_TRUE(has(o.out, "compute-sanitizer memcheck: ")) << o.out;
    EXPECT_FALSE(has(o.out, "memcheck: 0 errors")) << o.out;
    EXPECT_TRUE(has(o.out, e.sanitize_fails_with)) << file << " expects '" << e.sanitize_fails_with << "'\n" << o.out;
    std::printf("%s --sanitize:\n%s\n", file.filename().c_str(), o.out.c_str());
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Only the planted files that state a grade (expect-grade:), one test each: each holds the GPU and
// the host alone (tests/test_properties.cmake), since its performance points are a measurement.
std::vector<PlantedSubmission> planted_with_a_grade() {
  std::vector<PlantedSubmission> graded = planted_submissions();
  std::erase_if(graded, [](const PlantedSubmission& p) { return !planted_expectations(p.file).grade_outcome; });
  return graded;
}
class PlantedGradeOnTheGpu : public PlantedOnTheGpu {};

TEST_P(PlantedGradeOnTheGpu, GetsItsGrade) {
  const auto& [lab, file] = GetParam();
  const PlantedExpectations e = planted_expectations(file);
  const Outcome o = run("lab grade " + lab + " " + file.string() + " --json grade.json");
  ASSERT_TRUE(fs::exists(dir_ / "grade.json")) << file << "\n" << o.out << o.err;
  const nlohmann::json g = nlohmann::json::parse(slurp(dir_ / "grade.json"))["submissions"][0];
  EXPECT_EQ(g["outcome"], *e.grade_outcome) << file << "\n" << o.out << o.err;
  EXPECT_EQ(g["check"]["points"].get<double>(), e.check_points) << file << "\n" << g.dump(2);
  const double performance = g["performance"]["points"].get<double>();
  EXPECT_GE(performance, e.performance_lo) << file << "\n" << g.dump(2);
  EXPECT_LE(performance, e.performance_hi) << file << "\n" << g.dump(2);
  if (!e.grade_says.empty())
    EXPECT_TRUE(has(g["feedback"].dump(), e.grade_says)) << file << " expects '" << e.grade_says << "'\n" << g.dump(2);
  std::printf("%s: %s\n", file.filename().c_str(), o.out.substr(o.out.find("GRADE")).c_str());
}

INSTANTIATE_TEST_SUITE_P(EachGradedPlantedFile, PlantedGradeOnTheGpu, ::testing::ValuesIn(planted_with_a_grade()),
                         planted_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PlantedGradeOnTheGpu);

// --- timed samples' inputs (lab/child/fresh_inputs.h): no sample can profit from the one before it ------

// The largest share of positions where b[j] == a[j + d], over every shift |d| <= max_shift: a
// window, a shift or a copy of earlier data shows up as a share near 1.
double most_shared(const HostBuffer& a, const HostBuffer& b, std::int64_t max_shift) {
  const auto n = static_cast<std::int64_t>(a.size());
  double most = 0;
  for (std::int64_t d = -max_shift; d <= max_shift; ++d) {
    std::int64_t same = 0, compared = 0;
    for (std::int64_t j = std::max<std::int64_t>(0, -d); j < n && j + d < n; ++j, ++compared) same += b[j] == a[j + d];
    if (compared > n / 2) most = std::max(most, double(same) / double(compared));
  }
  return most;
}

double correlation(const HostBuffer& a, const HostBuffer& b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

TEST(FreshInputs, SuccessiveSamplesInputsAreUnrelated) {
  for (const char* name : {"reduce", "saxpy"}) {
    const Workload& w = *find_workload(name);
    const Shape shape{1, 1 << 14, 1};
    std::set<std::uint64_t> seeds;
    HostProblem last;
    for (std::size_t i = 0; i < 6; ++i) {
      const std::uint64_t seed = FreshInputs::sample_seed(2024, i);
      seeds.insert(seed);
      HostProblem p = recipe_problem(w, shape, seed);
      if (i > 0) {
        // Whole numbers 1..255 with signs match by chance 1 time in 510; real values almost never.
        EXPECT_LT(most_shared(last.inputs[0], p.inputs[0], 512), 0.01) << name << " sample " << i;
        EXPECT_LT(std::fabs(correlation(last.inputs[0], p.inputs[0])), 0.05) << name << " sample " << i;
        if (w.descriptor().recipe.output) EXPECT_LT(most_shared(last.output, p.output, 512), 0.01) << name;
        if (w.descriptor().recipe.scalar) EXPECT_NE(last.alpha, p.alpha) << name;
      }
      last = std::move(p);
    }
    EXPECT_EQ(seeds.size(), 6u);
    // Another samples key (another grade, or another size: GradeKeys) draws other samples.
    EXPECT_NE(FreshInputs::sample_seed(2024, 0), FreshInputs::sample_seed(2025, 0));
  }
}

// Every timed sample's problem is drawn again on the host for its verification, into the same
// buffers: exactly the recipe's problem for the sample's seed, as if drawn afresh.
TEST(FreshInputs, ASampleDrawnAgainInPlaceIsTheRecipesProblem) {
  const auto same_bits = [](const HostBuffer& a, const HostBuffer& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  };
  for (const auto& [name, shape] : {std::pair{"vector_add", Shape{1, 4099, 1}}, std::pair{"saxpy", Shape{1, 4099, 1}},
                                    std::pair{"reduce", Shape{1, 4099, 1}}, std::pair{"matmul", Shape{17, 33, 65}},
                                    std::pair{"transpose", Shape{31, 40, 1}}}) {
    const Workload& w = *find_workload(name);
    HostProblem again = recipe_problem(w, shape, 1);
    const float* first = again.inputs[0].data();
    redraw_recipe_problem(w, again, 2);
    const HostProblem fresh = recipe_problem(w, shape, 2);
    EXPECT_EQ(again.inputs[0].data(), first) << name << ": the same buffer";
    EXPECT_EQ(again.seed, 2u) << name;
    EXPECT_EQ(again.alpha, fresh.alpha) << name;
    ASSERT_EQ(again.inputs.size(), fresh.inputs.size()) << name;
    for (std::size_t i = 0; i < fresh.inputs.size(); ++i) EXPECT_TRUE(same_bits(again.inputs[i], fresh.inputs[i])) << name << " " << i;
    EXPECT_TRUE(same_bits(again.output, fresh.output)) << name << ": the output's start (poison or y)";
    EXPECT_FALSE(same_bits(again.inputs[0], recipe_problem(w, shape, 1).inputs[0])) << name << ": the new seed's values";
  }
}

// On the device: between two samples every input of the student's variant changes value, in the
// same buffers (the kernel's arguments stay the same), the output restarts, and the scalar is new.
TEST(FreshInputs, EachSampleRefillsTheSameBuffersOnTheGpu) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const driver::PrimaryContext context;
  const Stream stream;
  for (const char* lab : {"01-vector-add", "02-saxpy-grid-stride", "03-reduce"}) {
    const LabSpec spec = parse_lab_spec(kLabs / lab / "lab.json");
    const fs::path solution = solution_file(spec);
    const std::unique_ptr<StudentProgram> program =
        dynamic_cast<const KernelRunner&>(*spec.runner).load(spec, solution, {context.sm(), context.sm_count()}, {.compile_helper = LB_EXE});
    const std::unique_ptr<StudentVariant> variant = program->make_variant();
    const Shape shape{1, 100003, 1};
    CostLog costs;
    variant->allocate(shape, {stream.get(), &costs, nullptr});
    // As a grade does: the check's upload first (it writes the guard zone after the output).
    variant->upload(draw_problem(*spec.workload, shape, 7), stream.get());
    const DeviceBuffers before = variant->device_buffers();
    FreshInputs fresh(*spec.workload, shape, 99, *variant, stream.get());
    EXPECT_GT(fresh.refresh_ms(), 0.0) << lab;
    const auto inputs_of_sample = [&](std::size_t index) {
      fresh.before_sample(index, stream.get());
      const DeviceBuffers now = variant->device_buffers();
      EXPECT_EQ(now.inputs, before.inputs) << lab;
      EXPECT_EQ(now.output, before.output) << lab;
      std::vector<HostBuffer> inputs;
      for (std::size_t i = 0; i < now.inputs.size(); ++i) {
        inputs.emplace_back(static_cast<std::size_t>(spec.workload->input_elements(shape)[i]));
        LB_CUDA_CHECK(cudaMemcpyAsync(inputs.back().data(), now.inputs[i], inputs.back().size() * sizeof(float),
                                      cudaMemcpyDeviceToHost, stream.get()));
      }
      LB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      return inputs;
    };
    const std::vector<HostBuffer> one = inputs_of_sample(1), two = inputs_of_sample(2);
    for (std::size_t i = 0; i < one.size(); ++i) {
      EXPECT_LT(most_shared(one[i], two[i], 256), 0.01) << lab << " input " << i;
      // What the host draws for that sample is what the device holds.
      const HostProblem p = recipe_problem(*spec.workload, shape, FreshInputs::sample_seed(99, 2));
      EXPECT_EQ(std::memcmp(p.inputs[i].data(), two[i].data(), two[i].size() * sizeof(float)), 0) << lab;
    }
    // A right kernel passes a verified sample (the last), on the sample's own inputs.
    variant->run(stream.get());
    EXPECT_NO_THROW(fresh.after_sample(2, true, stream.get())) << lab;
    EXPECT_EQ(fresh.samples_verified(), 1u) << lab;
  }
}

}  // namespace
