// A lab on a workload folder (lab.json's "workload_dir"; labs/09-stencil5 on
// examples/workloads/stencil5): the spec takes the kernel, its parameters and its launch from the
// folder, each bad spec is one line naming the file and the field, every timed sample's problem is
// drawn on the host and uploaded (CPU; the embedded interpreter reads the folder, so these skip in a
// build without it); on a GPU, the folder's student kernel binds and launches as the folder says,
// a kernel that reuses its previous answer is caught by a timed sample's fresh problem, and the
// solution gets full marks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <tuple>

#include "common/cuda_check.h"
#include "common/gpu.h"
#include "common/stream.h"
#include "lab/child/fresh_inputs.h"
#include "lab/runners/kernel_runner.h"
#include "lab/runners/nvrtc/folder_kernel.h"
#include "lab_test_support.h"
#include "variants/python/python_layer.h"
#include "workloads/problem.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;
using namespace lb::lab;
using namespace lb::lab::testing;

const std::string kLab = "09-stencil5";
const fs::path kStencil = kRoot / "examples" / "workloads" / "stencil5";

#define NEED_EMBEDDED_PYTHON()                                                                                \
  do {                                                                                                        \
    if (const std::string why = python_layers_built_without(); !why.empty())                                  \
      GTEST_SKIP() << "a workload folder is read by the embedded interpreter, which this build lacks: " << why; \
  } while (0)

class FolderLab : public LabCliTest {
 protected:
  void SetUp() override {
    LabCliTest::SetUp();
    NEED_EMBEDDED_PYTHON();
  }
  // lab 09's lab.json with its folder given by its absolute path (so that the copy parses from dir_).
  nlohmann::json lab_json() const {
    nlohmann::json j = nlohmann::json::parse(slurp(kLabs / kLab / "lab.json"));
    j["workload_dir"] = kStencil.string();
    return j;
  }
  fs::path write_lab(const nlohmann::json& j, const std::string& name = "bad") const {
    const fs::path file = dir_ / name / "lab.json";
    write(file, j.dump(2));
    return file;
  }
};

// --- the spec ------------------------------------------------------------------------------------

TEST_F(FolderLab, TheSpecTakesKernelParametersAndLaunchFromTheFolder) {
  const LabSpec spec = parse_lab_spec(kLabs / kLab / "lab.json");
  ASSERT_NE(spec.folder, nullptr);
  EXPECT_EQ(spec.workload, spec.folder);
  EXPECT_EQ(find_workload("stencil5"), spec.folder) << "registered as `run --workload-dir` registers it";
  EXPECT_EQ(fs::path(spec.folder->spec().dir), fs::absolute(kStencil).lexically_normal());
  EXPECT_EQ(spec.kernel, "stencil5");
  EXPECT_EQ(spec.arguments, (std::vector<std::string>{"x", "w", "y", "n"}));
  EXPECT_EQ(spec.signature, "void stencil5(const float* x, const float* w, float* y, long long n)");
  EXPECT_EQ(spec.launch.block_x, 256u);
  EXPECT_FALSE(spec.output_starts_zero);
  EXPECT_EQ(spec.baseline, find_layer("driver")) << "ours: the folder's kernels.cu through the driver layer";
  ASSERT_TRUE(find_variant("driver", "stencil5"));
  EXPECT_EQ(spec.runner->name(), "nvrtc");
  EXPECT_EQ(spec.check_sizes.size(), spec.check_size_texts.size());
  EXPECT_EQ(check_size_label(spec, 1), "n = 255");
  // The plausibility bound and the ceiling come from the folder's formulas, unchanged.
  const Shape big = spec.benchmark_sizes.at(0);
  EXPECT_EQ(spec.workload->bytes_read(big), 4.0 * (big.n + 4) + 20);
  EXPECT_EQ(spec.workload->bytes_written(big), 4.0 * big.n);
  EXPECT_EQ(spec.workload->figure(), Figure::kBandwidth);
  // Parsed again (lab list, then lab check, in one process): the same workload, not a name clash.
  const LabSpec again = parse_lab_spec(kLabs / kLab / "lab.json");
  EXPECT_EQ(again.folder, spec.folder);
  const std::vector<LabSpec> labs = all_labs(kLabs);
  // This lab's folder once among every lab's (lab 10 is on another folder, row_softmax).
  EXPECT_EQ(std::count_if(labs.begin(), labs.end(), [&spec](const LabSpec& s) { return s.folder == spec.folder; }), 1);
}

// A lab on a folder with an in/out buffer (examples/workloads/saxpy_inout): the student's kernel
// takes it writable, and what the grade uploads as its starting contents is its drawn values (a
// fresh problem per sample restarts it as drawn), not poison.
TEST_F(FolderLab, AnInOutBufferStartsAsDrawnForTheStudentsKernel) {
  nlohmann::json j = lab_json();
  j["workload_dir"] = (kRoot / "examples" / "workloads" / "saxpy_inout").string();
  j["check_sizes"] = {"1", "1000"};
  j["benchmark_sizes"] = {"2^20"};
  const LabSpec spec = parse_lab_spec(write_lab(j, "inout"));
  EXPECT_EQ(spec.signature, "void saxpy_inout(float a, const float* x, float* y, long long n)");
  EXPECT_FALSE(spec.output_starts_zero);
  const Shape s{1, 1000, 1};
  const HostProblem p = spec.workload->make_problem(s, 5);
  const HostBuffer start = starting_output(spec, p);
  ASSERT_EQ(start.size(), 1000u);
  for (const float y : start) ASSERT_TRUE(std::fabs(y) >= 0.25f && std::fabs(y) < 1.0f) << y;  // drawn, not NaN
  HostBuffer result = start;
  for (std::size_t i = 0; i < result.size(); ++i) result[i] = 1.7f * p.inputs[0][i] + start[i];
  EXPECT_TRUE(spec.workload->verify(p, result).passed);
  EXPECT_FALSE(spec.workload->verify(p, start).passed);
}

// A student writes one kernel: a folder whose workload is a sequence is refused at workload_dir.
TEST_F(FolderLab, AFolderOfSeveralKernelsIsNoLab) {
  nlohmann::json j = lab_json();
  j["workload_dir"] = (kRoot / "examples" / "workloads" / "softmax_passes").string();
  j["check_sizes"] = {"3x70"};
  j["benchmark_sizes"] = {"1024x1024"};
  const fs::path file = write_lab(j, "sequence");
  try {
    parse_lab_spec(file);
    ADD_FAILURE() << "accepted";
  } catch (const LabSpecError& e) {
    EXPECT_TRUE(has(e.what(), "'workload_dir': ")) << e.what();
    EXPECT_TRUE(has(e.what(), "launches 3 kernels; a lab's student writes one")) << e.what();
  }
}

TEST_F(FolderLab, BadSpecsGiveOneLineNamingFileAndField) {
  // The real folder first: its name is then taken by it, and only by it.
  ASSERT_NE(parse_lab_spec(kLabs / kLab / "lab.json").folder, nullptr);
  // A folder whose workload.json is broken: the folder's own line, under workload_dir.
  const fs::path broken = dir_ / "broken_stencil";
  fs::copy(kStencil, broken, fs::copy_options::recursive);
  std::string workload = slurp(broken / "workload.json");
  workload.replace(workload.find("\"float32\""), 9, "\"float16\"");
  write(broken / "workload.json", workload);
  // Another folder whose workload is also named stencil5: a different workload of a taken name.
  const fs::path twin = dir_ / "twin" / "stencil5";
  fs::create_directories(twin.parent_path());
  fs::copy(kStencil, twin, fs::copy_options::recursive);

  using Edit = std::function<void(nlohmann::json&)>;
  const std::vector<std::tuple<std::string, Edit, std::string>> cases = {
      {"both", [](nlohmann::json& j) { j["workload"] = "vector_add"; }, "'workload_dir': give workload"},
      {"neither", [](nlohmann::json& j) { j.erase("workload_dir"); }, "'workload': missing (give workload"},
      {"missing folder", [](nlohmann::json& j) { j["workload_dir"] = "no_such_folder"; }, "'workload_dir': "},
      {"bad folder", [&](nlohmann::json& j) { j["workload_dir"] = broken.string(); }, "'workload_dir': "},
      {"name taken", [&](nlohmann::json& j) { j["workload_dir"] = twin.string(); }, "is already a workload's name"},
      {"not a string", [](nlohmann::json& j) { j["workload_dir"] = 9; }, "'workload_dir': expected a non-empty string"},
      {"the folder's name", [](nlohmann::json& j) { j.erase("workload_dir"); j["workload"] = "stencil5"; },
       "'workload': 'stencil5' is a workload folder's: give its folder as workload_dir"},
      {"kernel again", [](nlohmann::json& j) { j["kernel"] = "stencil5"; }, "'kernel': a lab on a workload folder takes it from"},
      {"signature again", [](nlohmann::json& j) { j["signature"] = "void stencil5()"; }, "'signature': a lab on a workload folder"},
      {"arguments again", [](nlohmann::json& j) { j["arguments"] = {"x", "w", "y", "n"}; }, "'arguments': a lab on a workload folder"},
      {"output_starts again", [](nlohmann::json& j) { j["output_starts"] = "poison"; }, "'output_starts': a lab on a workload folder"},
      {"launch again", [](nlohmann::json& j) { j["launch"] = {{"block", {256}}, {"grid", "cover_n"}}; },
       "'launch': a lab on a workload folder"},
      {"pycuda", [](nlohmann::json& j) { j["runner"] = "pycuda"; }, "'runner': the pycuda runner cannot run a lab on a workload folder"},
      {"cuda-core", [](nlohmann::json& j) { j["runner"] = "cuda-core"; }, "'runner': the cuda-core runner cannot run"},
      {"host-trip", [](nlohmann::json& j) { j["runner"] = "host-trip"; }, "'runner': the host-trip runner cannot run"},
      {"a size the folder refuses", [](nlohmann::json& j) { j["check_sizes"] = {"257", "4x4"}; }, "'check_sizes[1]'"},
      {"tier of another layer", [](nlohmann::json& j) { j["tiers"][0]["fraction_of"] = "runtime"; },
       "'tiers[0].fraction_of': expected the baseline layer 'driver'"},
  };
  for (const auto& [what, edit, field] : cases) {
    nlohmann::json j = lab_json();
    edit(j);
    const fs::path file = write_lab(j);
    try {
      parse_lab_spec(file);
      ADD_FAILURE() << what << ": accepted";
    } catch (const LabSpecError& e) {
      const std::string message = e.what();
      EXPECT_TRUE(has(message, file.string())) << what << ": " << message;
      EXPECT_TRUE(has(message, field)) << what << ": " << message;
      EXPECT_FALSE(has(message, "\n")) << what << ": " << message;
    }
  }
  // The folder's own line is passed on: the missing folder and the bad type name themselves.
  nlohmann::json j = lab_json();
  j["workload_dir"] = broken.string();
  try {
    parse_lab_spec(write_lab(j));
    ADD_FAILURE() << "accepted a folder with a bad buffer type";
  } catch (const LabSpecError& e) {
    EXPECT_TRUE(has(e.what(), (broken / "workload.json").string())) << e.what();
    EXPECT_TRUE(has(e.what(), "float16")) << e.what();
  }
  // workload_dir is relative to the lab's folder.
  nlohmann::json relative = lab_json();
  relative["workload_dir"] = fs::relative(kStencil, dir_ / "relative").string();
  EXPECT_NO_THROW(parse_lab_spec(write_lab(relative, "relative")));
}

// --- the commands, without a GPU -----------------------------------------------------------------

// A partial install (NumPy, no cuda-bindings: the embedded interpreter cannot read lab 9's workload
// folder) and a lab.json that does not parse: `lab list` lists the labs it can read and names each
// one it leaves out, with why, one line each; exit 0 while one is listed, 1 when none is.
TEST_F(FolderLab, ListNamesEachLabItLeavesOutWithWhy) {
  const fs::path labs = dir_ / "labs";
  fs::create_directories(labs);
  fs::copy(kLabs / "01-vector-add", labs / "01-vector-add", fs::copy_options::recursive);
  write(labs / kLab / "lab.json", lab_json().dump(2));
  write(labs / "99-broken" / "lab.json", "{ \"title\": ");
  // cuda.bindings made unimportable, as where it is not installed.
  write(dir_ / "hidden" / "cuda" / "__init__.py", "raise ImportError('cuda-bindings is not installed')\n");
  const std::string partial = "PYTHONPATH=" + (dir_ / "hidden").string();
  const Outcome list = run("lab --labs labs list", partial);
  EXPECT_EQ(list.code, 0) << list.out << list.err;
  EXPECT_TRUE(has(list.out, "01-vector-add")) << list.out;
  EXPECT_TRUE(has(list.out, "Left out here (2 of 3 labs):")) << list.out;
  const auto line_of = [&](const std::string& name) {
    const std::size_t at = list.out.find("  " + name + " ");
    return at == std::string::npos ? std::string() : list.out.substr(at, list.out.find('\n', at) - at);
  };
  EXPECT_TRUE(has(line_of(kLab), "cuda")) << list.out;
  EXPECT_TRUE(has(line_of("99-broken"), "lab.json")) << list.out;
  // Without the partial install, lab 9 is listed again.
  const Outcome whole = run("lab --labs labs list");
  EXPECT_EQ(whole.code, 0) << whole.err;
  EXPECT_TRUE(has(whole.out, "Left out here (1 of 3 labs):")) << whole.out;
  // Nothing that can be started: exit 1, each lab named.
  fs::remove_all(labs / "01-vector-add");
  fs::remove_all(labs / kLab);
  const Outcome none = run("lab --labs labs list");
  EXPECT_EQ(none.code, 1) << none.out << none.err;
  EXPECT_TRUE(has(none.out, "Left out here (1 of 1 labs):")) << none.out;
}

TEST_F(FolderLab, ListStartAndTheCompileCheckWithoutAGpu) {
  const Outcome list = run("lab list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_TRUE(has(list.out, kLab)) << list.out;
  EXPECT_TRUE(has(list.out, find_lab(kLabs, "9").title)) << list.out;

  const Outcome start = run("lab start 9 mine");
  ASSERT_EQ(start.code, 0) << start.err;
  EXPECT_EQ(slurp(dir_ / "mine" / "stencil5.cu"), slurp(kLabs / kLab / "stencil5.cu"));
  EXPECT_FALSE(fs::exists(dir_ / "mine" / "solution"));

  // NVRTC's error names the student's file and line, compiled for sm_90 on the host: no GPU needed.
  write(dir_ / "bad.cu", "extern \"C\" __global__ void stencil5(const float* x, const float* w, float* y,\n"
                         "                                    long long n) {\n"
                         "  y[0] = x[0] * w[0]\n"
                         "}\n");
  const Outcome bad = run("lab check 9 bad.cu");
  EXPECT_EQ(bad.code, 1) << bad.out << bad.err;
  EXPECT_TRUE(has(bad.out, "bad.cu(4): error")) << bad.out;
  EXPECT_TRUE(has(bad.out, "does not compile")) << bad.out;
  // A kernel of another name: the folder's name is the one looked up.
  write(dir_ / "renamed.cu", "extern \"C\" __global__ void stencil(float* y) { y[0] = 1; }\n");
  const Outcome renamed = run("lab check 9 renamed.cu");
  EXPECT_EQ(renamed.code, 1) << renamed.out << renamed.err;
  EXPECT_TRUE(has(renamed.out, "no kernel named stencil5")) << renamed.out;

  if (!gpu_unavailable_reason().empty()) {
    // The solution compiles and gets as far as the GPU, which this machine lacks.
    const Outcome o = run("lab check 9 " + solution_file(kLab, "stencil5.cu").string());
    EXPECT_EQ(o.code, 3) << o.out << o.err;
    EXPECT_TRUE(has(o.out, "cannot run the check here: no usable GPU")) << o.out;
  }
}

// --- fresh inputs: drawn on the host for a folder, on the device for a built-in workload -----------

// A variant that records what it was given, on no device.
class RecordingVariant final : public StudentVariant {
 public:
  void allocate(const Shape&, const Setup&) override {}
  void upload(const HostProblem& problem, cudaStream_t) override { uploads.push_back(problem); }
  void run(cudaStream_t) override {}
  void download(std::span<float>, cudaStream_t) override {}
  std::int64_t first_write_past_end(cudaStream_t) const override { return -1; }
  DeviceBuffers device_buffers() override { return {}; }
  void set_scalar(float) override {}
  std::vector<HostProblem> uploads;
};

TEST_F(FolderLab, EachSamplesProblemIsDrawnOnTheHostAndUploaded) {
  const LabSpec spec = parse_lab_spec(kLabs / kLab / "lab.json");
  const Shape shape{1, 1 << 14, 1};
  RecordingVariant variant;
  const std::unique_ptr<InputRefresh> refresh = input_refresh(*spec.workload, shape, variant);
  EXPECT_FALSE(refresh->on_device());
  const std::uint64_t one = FreshInputs::sample_seed(2024, 1),
                      two = FreshInputs::sample_seed(2024, 2);
  refresh->refresh(one, nullptr);
  refresh->refresh(two, nullptr);
  ASSERT_EQ(variant.uploads.size(), 2u);
  // Each upload is the folder's own problem for the sample's seed: every input, and the output's
  // starting contents (NaN), which the upload restarts.
  const HostProblem expected = spec.workload->make_problem(shape, two);
  const HostProblem& got = variant.uploads[1];
  ASSERT_EQ(got.inputs.size(), expected.inputs.size());
  for (std::size_t i = 0; i < got.inputs.size(); ++i)
    EXPECT_EQ(std::memcmp(got.inputs[i].data(), expected.inputs[i].data(), got.inputs[i].size() * sizeof(float)), 0) << i;
  EXPECT_TRUE(std::all_of(got.output.begin(), got.output.end(), [](float v) { return std::isnan(v); }));
  // Successive samples share nothing: x (n + 4 floats) and the five weights are new.
  const HostProblem& first = variant.uploads[0];
  std::size_t same_x = 0;
  for (std::size_t j = 0; j < got.inputs[0].size(); ++j) same_x += got.inputs[0][j] == first.inputs[0][j];
  EXPECT_LT(same_x, got.inputs[0].size() / 100);
  EXPECT_NE(std::memcmp(got.inputs[1].data(), first.inputs[1].data(), 5 * sizeof(float)), 0);
  // A verified sample is checked against the problem it was given (kept, not drawn a third time).
  EXPECT_EQ(&refresh->problem(two), &refresh->problem(two));
  EXPECT_EQ(std::memcmp(refresh->problem(two).inputs[0].data(), expected.inputs[0].data(),
                        expected.inputs[0].size() * sizeof(float)),
            0);
  // A built-in workload, whose descriptor has a recipe for every input, is drawn on the device.
  RecordingVariant other;
  EXPECT_TRUE(input_refresh(*find_workload("vector_add"), shape, other)->on_device());
  EXPECT_TRUE(input_refresh(*find_workload("saxpy"), shape, other)->on_device());
}

// A folder whose inputs.py ignores its seed gives every sample the same inputs, and a kernel could
// keep its answer: the grade refuses it at the second sample's draw, naming the workload.
TEST_F(FolderLab, AFolderWhoseDrawIgnoresTheSeedIsRefused) {
  const fs::path fixed = dir_ / "fixed" / "stencil5_fixed";
  fs::create_directories(fixed.parent_path());
  fs::copy(kStencil, fixed, fs::copy_options::recursive);
  nlohmann::json workload = nlohmann::json::parse(slurp(fixed / "workload.json"));
  workload["name"] = "stencil5_fixed";
  write(fixed / "workload.json", workload.dump(2));
  write(fixed / "inputs.py",
        "import numpy as np\n\n\ndef inputs(size, rng):  # the seed's generator unused: the same arrays every time\n"
        "    n = size['n']\n"
        "    return {'x': np.linspace(0.25, 0.75, n + 4), 'w': np.full(5, 0.5)}\n");
  nlohmann::json j = lab_json();
  j["workload_dir"] = fixed.string();
  const LabSpec spec = parse_lab_spec(write_lab(j, "fixed_lab"));
  const Shape shape{1, 1 << 12, 1};
  RecordingVariant variant;
  const std::unique_ptr<InputRefresh> refresh = input_refresh(*spec.workload, shape, variant);
  refresh->refresh(FreshInputs::sample_seed(1, 0), nullptr);
  try {
    refresh->refresh(FreshInputs::sample_seed(1, 1), nullptr);
    FAIL() << "a second sample with the first one's inputs was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(has(e.what(), "workload stencil5_fixed: input 1 drew the same values from two different seeds")) << e.what();
  }
  // One that alternates between two fixed draws: each sample differs from the last, and the third
  // repeats the first.
  const fs::path cycling = dir_ / "cycling" / "stencil5_cycling";
  fs::create_directories(cycling.parent_path());
  fs::copy(kStencil, cycling, fs::copy_options::recursive);
  workload["name"] = "stencil5_cycling";
  write(cycling / "workload.json", workload.dump(2));
  write(cycling / "inputs.py",
        "import numpy as np\n\ncalls = [0]\n\n\ndef inputs(size, rng):  # two fixed problems in turn\n"
        "    calls[0] += 1\n"
        "    n, shift = size['n'], 0.125 * (calls[0] % 2)\n"
        "    return {'x': np.linspace(0.25, 0.75, n + 4) + shift, 'w': np.full(5, 0.5)}\n");
  j["workload_dir"] = cycling.string();
  const LabSpec cycling_spec = parse_lab_spec(write_lab(j, "cycling_lab"));
  RecordingVariant other;
  const std::unique_ptr<InputRefresh> cycle = input_refresh(*cycling_spec.workload, shape, other);
  cycle->refresh(FreshInputs::sample_seed(1, 0), nullptr);
  cycle->refresh(FreshInputs::sample_seed(1, 1), nullptr);
  EXPECT_THROW(cycle->refresh(FreshInputs::sample_seed(1, 2), nullptr), std::runtime_error);
}

// --- on a GPU --------------------------------------------------------------------------------------

class FolderLabOnTheGpu : public FolderLab {
 protected:
  void SetUp() override {
    FolderLab::SetUp();
    if (IsSkipped()) return;
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  }
};

// The student's kernel of a folder lab, loaded as the child loads it, allocated at `shape` and
// given a check's problem; then timed samples as the grade gives them: fresh problems in the same
// buffers. The solution passes every verified sample; a kernel that answers from a cache keyed by
// its buffers (wrong/caches_last_answer.cu) passes its first run and fails the first fresh sample.
TEST_F(FolderLabOnTheGpu, AKernelThatReusesItsAnswerFailsAFreshSample) {
  const LabSpec spec = parse_lab_spec(kLabs / kLab / "lab.json");
  const driver::PrimaryContext context;
  const Stream stream;
  const Shape shape{1, 100003, 1};
  for (const auto& [file, reuses] : {std::pair{solution_file(spec), false},
                                     std::pair{planted_file(kLab, "caches_last_answer.cu"), true}}) {
    const std::unique_ptr<StudentProgram> program = dynamic_cast<const KernelRunner&>(*spec.runner)
        .load(spec, file, {context.sm(), context.sm_count(), context.threads_per_sm()}, {.compile_helper = LB_EXE});
    const std::unique_ptr<StudentVariant> variant = program->make_variant();
    EXPECT_NE(dynamic_cast<FolderStudentKernel*>(variant.get()), nullptr) << "the folder's variant, chosen in load()";
    CostLog costs;
    variant->allocate(shape, {stream.get(), &costs, nullptr});
    // The check's run: right for both (a new problem in new buffers).
    const HostProblem checked = draw_problem(*spec.workload, shape, 7);
    variant->upload(checked, stream.get());
    variant->run(stream.get());
    HostBuffer result(static_cast<std::size_t>(spec.workload->output_elements(shape)));
    variant->download(result, stream.get());
    EXPECT_TRUE(spec.workload->verify(checked, result).passed) << file;
    EXPECT_EQ(variant->first_write_past_end(stream.get()), -1) << file;
    // The grade's timed samples.
    FreshInputs fresh(*spec.workload, shape, 99, *variant, stream.get());
    EXPECT_GT(fresh.refresh_ms(), 0.0);
    for (std::size_t index = 0; index < 3; ++index) {
      fresh.before_sample(index, stream.get());
      // The device holds this sample's x, drawn on the host from its seed.
      HostBuffer x(checked.inputs[0].size());
      LB_CUDA_CHECK(cudaMemcpyAsync(x.data(), variant->device_buffers().inputs[0], x.size() * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream.get()));
      LB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      const HostProblem sample =
          spec.workload->make_problem(shape, FreshInputs::sample_seed(99, index));
      EXPECT_EQ(std::memcmp(x.data(), sample.inputs[0].data(), x.size() * sizeof(float)), 0) << index;
      variant->run(stream.get());
      if (reuses) {
        EXPECT_THROW(fresh.after_sample(index, /*last=*/true, stream.get()), WrongTimedResult) << index;
      } else {
        EXPECT_NO_THROW(fresh.after_sample(index, /*last=*/true, stream.get())) << index;
      }
    }
  }
}

// A store past the end of an output lands in its guard zone: the check names it.
TEST_F(FolderLabOnTheGpu, AStorePastTheEndOfAnOutputIsSeen) {
  const LabSpec spec = parse_lab_spec(kLabs / kLab / "lab.json");
  const driver::PrimaryContext context;
  const Stream stream;
  const std::unique_ptr<StudentProgram> program = dynamic_cast<const KernelRunner&>(*spec.runner)
      .load(spec, planted_file(kLab, "no_bounds_check.cu"), {context.sm(), context.sm_count(), context.threads_per_sm()},
            {.compile_helper = LB_EXE});
  const std::unique_ptr<StudentVariant> variant = program->make_variant();
  const Shape shape{1, 257, 1};
  CostLog costs;
  variant->allocate(shape, {stream.get(), &costs, nullptr});
  variant->upload(draw_problem(*spec.workload, shape, 7), stream.get());
  variant->run(stream.get());
  LB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  EXPECT_EQ(variant->first_write_past_end(stream.get()), 0);
}

// The solution reaches the top tier against ours (the folder's own kernel through the driver layer):
// 100 / 100. Timed: it holds the host alone (tests/test_properties.cmake).
TEST_F(FolderLabOnTheGpu, TheSolutionGetsFullMarks) {
  const Outcome o = run("lab grade " + kLab + " " + solution_file(kLab, "stencil5.cu").string() + " --json grade.json");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const nlohmann::json g = nlohmann::json::parse(slurp(dir_ / "grade.json"))["submissions"][0];
  EXPECT_EQ(g["outcome"], "graded") << g.dump(2);
  EXPECT_EQ(g["points"].get<double>(), 100.0) << g.dump(2);
  for (const nlohmann::json& b : g["performance"]["benchmarks"]) {
    EXPECT_GT(b.value("samples_verified", 0), 0) << b.dump(2);
    EXPECT_GT(b.value("input_reset_ms", 0.0), 0.0) << b.dump(2);
  }
  std::printf("%s\n", o.out.c_str());
}

}  // namespace
