// A workload folder as the harness runs it (`run --workload-dir`), on the CPU: a folder with every
// element type (float32, float64, int32, int64), several outputs (one starting at zero) and typed
// scalars is registered (variants/python/workload_folder.cpp); its problem is drawn from the seed
// into the harness's byte-carrying buffers (workloads/folder/folder_workload.h); a result computed
// here on the CPU passes the check against its reference.py; one wrong element of any output
// fails it, naming the output; the poisoned starting contents fail it; a reference that raises or
// returns the wrong shape is one line naming reference.py.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/data_root.h"
#include "common/usage_error.h"
#include "variants/python/python_layer.h"
#include "variants/python/workload_folder.h"
#include "variants/variant.h"
#include "workloads/folder/folder_workload.h"

namespace {

namespace fs = std::filesystem;
using namespace lb;

constexpr const char* kWorkloadJson = R"({
  "name": "%NAME%",
  "summary": "every element type: y32 = alpha a, y64 = b + a, i32 = c + shift, i64 = 2 d",
  "size_form": "n",
  "default_sizes": ["1001"],
  "buffers": [
    {"name": "a", "type": "float32", "extents": ["n"], "role": "input"},
    {"name": "b", "type": "float64", "extents": ["n"], "role": "input"},
    {"name": "c", "type": "int32", "extents": ["n"], "role": "input", "draw": {"kind": "range", "lo": "0", "hi": "100"}},
    {"name": "d", "type": "int64", "extents": ["n"], "role": "input"},
    {"name": "y32", "type": "float32", "extents": ["n"], "role": "output"},
    {"name": "y64", "type": "float64", "extents": ["n"], "role": "output"},
    {"name": "i32", "type": "int32", "extents": ["n"], "role": "output"},
    {"name": "i64", "type": "int64", "extents": ["n"], "role": "output", "starts_as": "zero"}
  ],
  "scalars": [{"name": "alpha", "type": "float64", "value": 2.5}, {"name": "shift", "type": "int32", "value": 3}],
  "kernel": {"name": "mix", "arguments": ["a", "b", "c", "d", "y32", "y64", "i32", "i64", "alpha", "shift", "n"]},
  "launch": {"block": [128], "grid": ["n / 128"]},
  "bytes": {"read": "24 * n", "written": "24 * n"},
  "flops": "4 * n"
})";

constexpr const char* kKernel = R"(extern "C" __global__ void mix(const float* a, const double* b, const int* c,
    const long long* d, float* y32, double* y64, int* i32, long long* i64, double alpha, int shift, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y32[i] = (float)(alpha * a[i]);
  y64[i] = b[i] + a[i];
  i32[i] = c[i] + shift;
  i64[i] = 2 * d[i];
}
)";

constexpr const char* kReference = R"(import numpy as np


def reference(inputs, scalars, size):
    a, b = inputs["a"], inputs["b"]
    return {"y32": scalars["alpha"] * a, "y64": b + a, "i32": inputs["c"] + scalars["shift"], "i64": 2 * inputs["d"]}


def tolerance(inputs, scalars, size):
    a, b = np.abs(inputs["a"]), np.abs(inputs["b"])
    return {"y32": (scalars["alpha"] * a, 2.0**-23), "y64": (a + b, 2.0**-50)}
)";

void write(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
}

// Where this process writes its folders: one directory per process (ctest runs each test in a
// process of its own), removed with everything in it when the process's tests are done.
fs::path folders_root() { return fs::temp_directory_path() / ("lb_folder_workload_" + std::to_string(getpid())); }

class RemoveFolders : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ignored;  // nothing made (every test skipped) is nothing to remove
    fs::remove_all(folders_root(), ignored);
  }
};
[[maybe_unused]] const ::testing::Environment* const kRemoveFolders =
    ::testing::AddGlobalTestEnvironment(new RemoveFolders);  // gtest owns it

// A folder named `name` in this process's temporary directory, its reference.py `reference`.
fs::path make_folder(const std::string& name, const std::string& reference = kReference) {
  const fs::path dir = folders_root() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string json = kWorkloadJson;
  json.replace(json.find("%NAME%"), 6, name);
  write(dir / "workload.json", json);
  write(dir / "kernels.cu", kKernel);
  write(dir / "reference.py", reference);
  return dir;
}

#define NEED_EMBEDDED_PYTHON()                                                                          \
  if (const std::string why = python_layers_built_without(); !why.empty()) GTEST_SKIP() << why;         \
  if (const std::string why = embedded_python_unavailable_reason(); !why.empty()) GTEST_SKIP() << why

template <class T>
T* at(HostBuffer& b, std::int64_t byte_offset) {
  return reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(b.data()) + byte_offset);
}
template <class T>
const T* at(const HostBuffer& b, std::int64_t byte_offset) {
  return reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(b.data()) + byte_offset);
}

class FolderWorkloadTest : public ::testing::Test {
 protected:
  // One registration per process (a name is registered once): the typed folder, shared.
  static const FolderWorkload& typed() {
    static const FolderWorkload& w = register_workload_folder(make_folder("typed_mix").string());
    return w;
  }
  static constexpr Shape kShape{1, 1001, 1};

  // What the kernel computes, on the CPU, into the packed outputs (HostProblem::output's layout).
  static HostBuffer cpu_result(const FolderWorkload& w, const HostProblem& p) {
    const FolderLayout l = w.layout(p.shape);
    HostBuffer out(static_cast<std::size_t>(w.output_elements(p.shape)));
    const float* a = at<float>(p.inputs[0], 0);
    const double* b = at<double>(p.inputs[1], 0);
    const int* c = at<int>(p.inputs[2], 0);
    const long long* d = at<long long>(p.inputs[3], 0);
    for (std::int64_t i = 0; i < p.shape.n; ++i) {
      at<float>(out, l.buffers[4].offset)[i] = static_cast<float>(2.5 * a[i]);
      at<double>(out, l.buffers[5].offset)[i] = b[i] + a[i];
      at<int>(out, l.buffers[6].offset)[i] = c[i] + 3;
      at<long long>(out, l.buffers[7].offset)[i] = 2 * d[i];
    }
    return out;
  }
};

TEST_F(FolderWorkloadTest, LayoutPacksOutputsEightByteAligned) {
  NEED_EMBEDDED_PYTHON();
  const FolderWorkload& w = typed();
  const FolderLayout l = w.layout(kShape);
  ASSERT_EQ(l.buffers.size(), 8u);
  EXPECT_EQ(l.buffers[0].bytes, 4004);
  EXPECT_EQ(l.buffers[1].bytes, 8008);
  EXPECT_EQ(l.buffers[4].offset, 0);
  EXPECT_EQ(l.buffers[5].offset, 4008);  // 4004 rounded up to 8
  EXPECT_EQ(l.buffers[6].offset, 4008 + 8008);
  EXPECT_EQ(l.buffers[7].offset, 4008 + 8008 + 4008);
  EXPECT_EQ(w.input_elements(kShape), (std::vector<std::int64_t>{1001, 2002, 1001, 2002}));
  EXPECT_EQ(w.bytes_read(kShape), 24.0 * 1001);
  EXPECT_EQ(w.default_sizes(), (std::vector<Shape>{kShape}));
  EXPECT_EQ(w.grid(kShape, 0), (std::array<unsigned, 3>{8, 1, 1}));
  // A grid-stride kernel's blocks: every SM full (as lb_folder.launch_shape says in Python).
  EXPECT_EQ(grid_stride_blocks({256, 1, 1}, 132, 2048), 132u * 8);
  EXPECT_EQ(grid_stride_blocks({32, 16, 2}, 132, 1536), 132u);  // 1024 threads: one block an SM
  // The kernel's parameters in order, the scalars as the bytes the kernel reads.
  ASSERT_EQ(w.spec().kernels.size(), 1u);
  const FolderKernel& spec = w.spec().kernels[0];
  EXPECT_EQ(spec.name, "mix");
  ASSERT_EQ(spec.arguments.size(), 11u);
  EXPECT_EQ(spec.arguments[8].kind, FolderArgument::Kind::kScalar);
  double alpha = 0;
  std::memcpy(&alpha, spec.arguments[8].value.data(), sizeof alpha);
  EXPECT_EQ(alpha, 2.5);
  int shift = 0;
  std::memcpy(&shift, spec.arguments[9].value.data(), sizeof shift);
  EXPECT_EQ(shift, 3);
  EXPECT_EQ(spec.arguments[10].kind, FolderArgument::Kind::kSize);
  EXPECT_EQ(w.spec().buffers[1].type, ElementType::kFloat64);
  EXPECT_EQ(w.descriptor().folder.content_hash.size(), 64u);
}

TEST_F(FolderWorkloadTest, DrawsTypedInputsFromTheSeedAndPoisonsOutputs) {
  NEED_EMBEDDED_PYTHON();
  const FolderWorkload& w = typed();
  const HostProblem p = w.make_problem(kShape, 42);
  const FolderLayout l = w.layout(kShape);
  ASSERT_EQ(p.inputs.size(), 4u);
  for (std::int64_t i = 0; i < kShape.n; ++i) {
    const float a = at<float>(p.inputs[0], 0)[i];
    const double b = at<double>(p.inputs[1], 0)[i];
    const int c = at<int>(p.inputs[2], 0)[i];
    const long long d = at<long long>(p.inputs[3], 0)[i];
    ASSERT_TRUE(std::fabs(a) >= 0.25f && std::fabs(a) < 1.0f) << i << ": " << a;  // the unit draw
    ASSERT_TRUE(std::fabs(b) >= 0.25 && std::fabs(b) < 1.0) << i << ": " << b;
    ASSERT_TRUE(c >= 0 && c < 100) << i << ": " << c;                             // the range draw
    ASSERT_TRUE(d != 0 && d >= -255 && d <= 255) << i << ": " << d;               // the integer draw
    ASSERT_TRUE(std::isnan(at<float>(p.output, l.buffers[4].offset)[i]));
    ASSERT_TRUE(std::isnan(at<double>(p.output, l.buffers[5].offset)[i]));
    ASSERT_EQ(at<int>(p.output, l.buffers[6].offset)[i], -1);
    ASSERT_EQ(at<long long>(p.output, l.buffers[7].offset)[i], 0);  // starts_as zero
  }
  const HostProblem same = w.make_problem(kShape, 42), other = w.make_problem(kShape, 43);
  for (std::size_t j = 0; j < p.inputs.size(); ++j) {
    EXPECT_EQ(std::memcmp(p.inputs[j].data(), same.inputs[j].data(), p.inputs[j].size() * 4), 0) << j;
    EXPECT_NE(std::memcmp(p.inputs[j].data(), other.inputs[j].data(), p.inputs[j].size() * 4), 0) << j;
  }
}

TEST_F(FolderWorkloadTest, ACpuResultPassesAndOneWrongElementOfAnyOutputFails) {
  NEED_EMBEDDED_PYTHON();
  const FolderWorkload& w = typed();
  const HostProblem p = w.make_problem(kShape, 7);
  const HostBuffer good = cpu_result(w, p);
  const Verdict ok = w.verify(p, good);
  EXPECT_TRUE(ok.passed) << ok.detail;
  const FolderLayout l = w.layout(kShape);
  const std::int64_t i = 517;
  const auto fails = [&](const char* output, auto mutate) {
    HostBuffer bad = good;
    mutate(bad);
    const Verdict v = w.verify(p, bad);
    EXPECT_FALSE(v.passed) << output;
    EXPECT_NE(v.detail.find(std::string(output) + "[517]"), std::string::npos) << v.detail;
  };
  fails("y32", [&](HostBuffer& b) { at<float>(b, l.buffers[4].offset)[i] *= 1.001f; });
  fails("y64", [&](HostBuffer& b) { at<double>(b, l.buffers[5].offset)[i] *= 1 + 1e-12; });
  fails("i32", [&](HostBuffer& b) { at<int>(b, l.buffers[6].offset)[i] += 1; });
  fails("i64", [&](HostBuffer& b) { at<long long>(b, l.buffers[7].offset)[i] -= 1; });
  fails("y64", [&](HostBuffer& b) { at<double>(b, l.buffers[5].offset)[i] = std::nan(""); });
}

TEST_F(FolderWorkloadTest, ThePoisonedStartFails) {
  NEED_EMBEDDED_PYTHON();
  const FolderWorkload& w = typed();
  const HostProblem p = w.make_problem(kShape, 7);
  const Verdict v = w.verify(p, p.output);  // nothing written: every output as it started
  EXPECT_FALSE(v.passed);
  for (const char* output : {"y32[", "y64[", "i32[", "i64["})
    EXPECT_NE(v.detail.find(output), std::string::npos) << v.detail;
}

TEST_F(FolderWorkloadTest, AReferenceThatRaisesOrMisshapesIsOneLineNamingIt) {
  NEED_EMBEDDED_PYTHON();
  const std::string raises = std::string(kReference) + "\n\ndef reference(inputs, scalars, size):\n    return 1 / 0\n";
  const FolderWorkload& r = register_workload_folder(make_folder("typed_raises", raises).string());
  try {
    r.check_reference(kShape, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("reference.py: reference(): raised ZeroDivisionError"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  const HostProblem p = r.make_problem(kShape, 1);
  EXPECT_THROW(r.verify(p, p.output), std::runtime_error);  // during a run: that case fails

  const std::string misshaped = std::string(kReference) +
      "\n\n_right = reference\n\ndef reference(inputs, scalars, size):\n    out = _right(inputs, scalars, size)\n"
      "    out[\"i64\"] = out[\"i64\"][:-1]\n    return out\n";
  const FolderWorkload& m = register_workload_folder(make_folder("typed_misshaped", misshaped).string());
  try {
    m.check_reference(kShape, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("reference.py: reference()['i64']: has shape (1000,), expected (1001,)"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(FolderWorkloadTest, ANameTakenIsUsageError) {
  NEED_EMBEDDED_PYTHON();
  const FolderWorkload& first = typed();
  // Another folder whose workload.json has the same name.
  const fs::path another = make_folder("typed_mix").parent_path() / "another" / "typed_mix";
  fs::remove_all(another);
  fs::create_directories(another.parent_path());
  fs::copy(make_folder("typed_mix"), another, fs::copy_options::recursive);
  EXPECT_THROW(register_workload_folder(another.string()), UsageError);
  EXPECT_THROW(register_workload_folder(make_folder("saxpy").string()), UsageError);
  // The same folder again (a lab parsed twice; a lab and `run` in one process) is the same workload.
  EXPECT_EQ(&register_workload_folder(make_folder("typed_mix").string()), &first);
  EXPECT_EQ(&register_workload_folder((make_folder("typed_mix") / ".." / "typed_mix").string()), &first);
}

TEST_F(FolderWorkloadTest, EveryKernelTextLayerHasAVariant) {
  NEED_EMBEDDED_PYTHON();
  const FolderWorkload& w = typed();
  int layers = 0;
  for (const Layer* l : all_layers()) {
    if (!l->folder_variant) continue;
    ++layers;
    EXPECT_NE(find_variant(l->name, w.name()), nullptr) << l->name;
  }
  EXPECT_GE(layers, 1);  // the driver layer at least
  EXPECT_NE(find_variant("driver", w.name()), nullptr);
}

fs::path example(const char* name) { return data_root() / "examples" / "workloads" / name; }

// An in/out buffer (examples/workloads/saxpy_inout's y) travels with the outputs: its starting
// contents are its drawn values, what upload copies to the device; the check's reference reads
// those drawn values (the problem as drawn), and the result is what is checked.
TEST(FolderWorkloadInOut, StartsAsDrawnAndIsCheckedAgainstTheDrawnValues) {
  NEED_EMBEDDED_PYTHON();
  const FolderWorkload& w = register_workload_folder(example("saxpy_inout").string());
  const Shape s{1, 1000, 1};
  const HostProblem p = w.make_problem(s, 3);
  ASSERT_EQ(p.inputs.size(), 1u);  // x alone: y is with the outputs
  const FolderLayout l = w.layout(s);
  ASSERT_TRUE(l.buffers[1].output);
  const float* x = at<float>(p.inputs[0], 0);
  const float* y0 = at<float>(p.output, l.buffers[1].offset);
  HostBuffer result = p.output;
  float* y = at<float>(result, l.buffers[1].offset);
  for (std::int64_t i = 0; i < s.n; ++i) {
    ASSERT_TRUE(std::fabs(y0[i]) >= 0.25f && std::fabs(y0[i]) < 1.0f) << i << ": " << y0[i];  // drawn, not poison
    y[i] = 1.7f * x[i] + y0[i];
  }
  const Verdict ok = w.verify(p, result);
  EXPECT_TRUE(ok.passed) << ok.detail;
  EXPECT_FALSE(w.verify(p, p.output).passed);  // y left as it was drawn
}

// A sequence of kernels (examples/workloads/softmax_passes): each kernel with its own arguments and
// launch, in workload.json's order; the descriptor's arguments (a lab's signature) are the first's.
TEST(FolderWorkloadSequence, EveryKernelInOrderWithItsOwnLaunch) {
  NEED_EMBEDDED_PYTHON();
  const std::unique_ptr<FolderWorkload> w = read_workload_folder(example("softmax_passes").string());
  const FolderSpec& spec = w->spec();
  ASSERT_EQ(spec.kernels.size(), 3u);
  EXPECT_EQ(spec.kernels[0].name, "row_max_pass");
  EXPECT_EQ(spec.kernels[1].name, "row_sum_pass");
  EXPECT_EQ(spec.kernels[2].name, "normalise_pass");
  EXPECT_EQ(spec.kernels[1].arguments.size(), 5u);
  EXPECT_EQ(spec.kernels[2].arguments[3].buffer, 3);  // y, the fourth buffer
  const Shape s{3, 1000, 1};
  EXPECT_EQ(w->grid(s, 0), (std::array<unsigned, 3>{3, 1, 1}));
  EXPECT_EQ(w->grid(s, 2), (std::array<unsigned, 3>{3, 4, 1}));
  EXPECT_EQ(w->descriptor().kernel_args.size(), 4u);
  EXPECT_EQ(w->device_bytes(s), 4.0 * (3 * 1000 * 2 + 3 * 2));
}

// default_sizes go through the harness's one size parser (workloads/sizes.h), with its limits: 2^64
// is one line naming the field. And each size is checked without drawing: a grid above y's limit.
TEST(FolderWorkloadSizes, DefaultSizesThroughTheOneParserAndEverySizeChecked) {
  NEED_EMBEDDED_PYTHON();
  const fs::path dir = make_folder("typed_sizes");
  std::ifstream in(dir / "workload.json");
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto replace = [&json](const std::string& old, const std::string& by) {
    ASSERT_NE(json.find(old), std::string::npos) << old;
    json.replace(json.find(old), old.size(), by);
  };
  replace("\"1001\"", "\"2^64\"");
  replace("\"grid\": [\"n / 128\"]", "\"grid\": [\"1\", \"n\"]");
  write(dir / "workload.json", json);
  const std::unique_ptr<FolderWorkload> w = read_workload_folder(dir.string());
  try {
    w->default_sizes();
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("workload.json: default_sizes[0]: size '2^64' is too large"), std::string::npos)
        << e.what();
  }
  const std::array<long long, 3> limits{2147483647LL, 65535LL, 65535LL};
  w->check_size(Shape{1, 65535, 1}, limits);
  try {
    w->check_size(Shape{1, 125000, 1}, limits);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("launch.grid[1]: 'n' is 125000 blocks at m=1, n=125000, k=1, above the y limit of 65535"),
              std::string::npos)
        << e.what();
  }
}

// The binding both C++ kernel-text layers launch with (FolderArguments): each parameter's slot, in
// the spec's order, holds a buffer's device address, a scalar's own bytes, or a size as long long.
// No embedded Python: the spec is built here.
TEST(FolderArguments, BindsBuffersScalarsAndSizesInTheSpecsOrder) {
  FolderKernel spec;
  FolderArgument y{"y", FolderArgument::Kind::kBuffer, 1};
  FolderArgument alpha{"alpha", FolderArgument::Kind::kScalar};
  const float a = 2.5f;
  std::memcpy(alpha.value.data(), &a, sizeof a);
  alpha.value_bytes = sizeof a;
  FolderArgument m{"m", FolderArgument::Kind::kSize};
  m.dim = Dim::kM;
  FolderArgument x{"x", FolderArgument::Kind::kBuffer, 0};
  FolderArgument n{"n", FolderArgument::Kind::kSize};
  n.dim = Dim::kN;
  spec.arguments = {y, alpha, m, x, n};
  FolderArguments bound(spec, Shape{7, 1001, 1}, {0x1000, 0x2000});
  void** args = bound.args();
  EXPECT_EQ(*static_cast<std::uint64_t*>(args[0]), 0x2000u);  // y: the second buffer's address
  float got_alpha = 0;
  std::memcpy(&got_alpha, args[1], sizeof got_alpha);
  EXPECT_EQ(got_alpha, 2.5f);
  EXPECT_EQ(*static_cast<long long*>(args[2]), 7);
  EXPECT_EQ(*static_cast<std::uint64_t*>(args[3]), 0x1000u);
  EXPECT_EQ(*static_cast<long long*>(args[4]), 1001);
}

}  // namespace
