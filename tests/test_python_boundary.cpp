// The one C++/Python boundary (variants/python/python_object.h, lb_native.cpp), in the embedded
// interpreter, no GPU needed: the launch constants Python sees are this build's macros; a Python
// layer's compile lands in the driver layer's kernel cache, in its format, and C++ reads it back
// as a hit (and the other way round); a layer's Python session lives as long as its C++ session;
// the exception mapping; a workload's descriptor as the Python labs' runner receives it. The
// Python side without layerbench (lb_native's extension module): tests/python/test_python_layers.py.
#include <gtest/gtest.h>
#include <pybind11/embed.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "common/cuda_check.h"
#include "variants/nvrtc/kernel_cache.h"
#include "variants/nvrtc/nvrtc_compiler.h"
#include "variants/python/python_layer.h"
#include "variants/python/python_object.h"
#include "variants/variant.h"
#include "workloads/launch_config.h"
#include "workloads/workload.h"

namespace {

namespace fs = std::filesystem;
namespace py = pybind11;
using namespace lb;

// The interpreter starts here (as the Python layers start it); skipped where it cannot.
#define START_EMBEDDED_PYTHON()                                                                  \
  if (const std::string why = embedded_python_unavailable_reason(); !why.empty()) GTEST_SKIP() << why

class PythonKernelCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lb_python_boundary_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(PythonBoundary, LaunchConstantsArePythonsAsCompiled) {
  START_EMBEDDED_PYTHON();
  const py::module_ native = py::module_::import("lb_native");
  EXPECT_TRUE(native.attr("EMBEDDED").cast<bool>());  // the builtin module, not the extension
  const auto config = native.attr("LAUNCH_CONFIG").cast<std::map<std::string, long long>>();
  EXPECT_EQ(config.at("LB_BLOCK"), LB_BLOCK);
  EXPECT_EQ(config.at("LB_BLOCKS_PER_SM"), LB_BLOCKS_PER_SM);
  EXPECT_EQ(config.at("LB_MM_BM"), LB_MM_BM);
  EXPECT_EQ(config.at("LB_MM_BN"), LB_MM_BN);
  EXPECT_EQ(config.at("LB_MM_THREADS"), LB_MM_THREADS);
#ifdef LB_TR_TILE
  EXPECT_EQ(config.at("LB_TR_TILE"), LB_TR_TILE);
  EXPECT_EQ(config.at("LB_TR_ROWS"), LB_TR_ROWS);
  EXPECT_EQ(config.at("LB_TR_BLOCK_X"), LB_TR_BLOCK_X);
#endif
  // What the layers read: lb_shared's constants are these, not a parse of the header.
  const py::module_ shared = py::module_::import("lb_shared");
  using Constants = std::map<std::string, long long>;
  EXPECT_EQ(shared.attr("CONFIG").cast<Constants>(), config);
  EXPECT_EQ(shared.attr("BLOCK").cast<long long>(), LB_BLOCK);
  EXPECT_EQ(shared.attr("MM_THREADS").cast<long long>(), LB_MM_THREADS);
}

// The compile inputs of a Python layer's compile, as lb_shared.cached_cubin hands them to C++.
nvrtc::KernelKey python_key(const std::string& workload, const std::string& compiler,
                             const std::vector<std::string>& options) {
  const py::module_ shared = py::module_::import("lb_shared");
  const std::string text = shared.attr("kernel_source")(workload).cast<std::string>();
  return {compiler, "workloads/" + workload + "/kernels.cu", text,
          shared.attr("kernel_headers")(text).cast<std::vector<std::pair<std::string, std::string>>>(), options, 90};
}

TEST_F(PythonKernelCache, APythonCompileLandsInTheCppCacheAndCppReadsItAsAHit) {
  START_EMBEDDED_PYTHON();
  const py::module_ shared = py::module_::import("lb_shared");
  const py::object cache = py::module_::import("lb_native").attr("KernelCache")(dir_.string(), true);
  const std::vector<std::string> options = {"--test-option"};
  const py::bytes fake("\x7f" "ELF a layer's CUBIN");
  const py::object text = shared.attr("kernel_source")("reduce");
  const py::tuple first = shared.attr("cached_cubin")(cache, "reduce", text, options, 90, "test-compiler 1.0",
                                                      py::cpp_function([&] { return fake; }));
  EXPECT_EQ(first[1].cast<std::string>(), "compiled");

  // The entry is the C++ cache's: its file name and key, its format.
  const nvrtc::KernelKey key = python_key("reduce", "test-compiler 1.0", options);
  EXPECT_FALSE(key.headers.empty());  // reduce includes workloads/launch_config.h: part of the key
  const fs::path file = nvrtc::cache_file({dir_.string(), true}, key);
  ASSERT_TRUE(fs::exists(file)) << file;
  EXPECT_EQ(slurp(file).rfind("layerbench-cubin 1\n" + nvrtc::cache_key(key) + "\n", 0), 0u);

  // C++ reads it back as a hit, the same bytes, without compiling.
  const nvrtc::CachedCubin again = nvrtc::cached_cubin({dir_.string(), true}, key, []() -> std::string {
    ADD_FAILURE() << "compiled again: the Python layer's entry was not found";
    return "";
  });
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.cubin, fake.cast<std::string>());
  EXPECT_EQ(again.cache_file, file.string());
}

TEST_F(PythonKernelCache, ACppCompileIsAHitForPythonWithTheSameInputs) {
  START_EMBEDDED_PYTHON();
  // The driver layer's NVRTC compile of one text...
  const py::module_ shared = py::module_::import("lb_shared");
  const std::string text = shared.attr("kernel_source")("saxpy").cast<std::string>();
  const nvrtc::CompiledKernel compiled =
      nvrtc::compile_cubin({"workloads/saxpy/kernels.cu", text, {}, 90}, {dir_.string(), true});
  ASSERT_FALSE(compiled.from_cache);
  // ... is what Python finds for the same inputs: the same compiler, options, target and text.
  const py::object cache = py::module_::import("lb_native").attr("KernelCache")(dir_.string(), true);
  const std::string nvrtc = "nvrtc " + nvrtc::nvrtc_version();  // the driver layer's compiler identity
  const py::tuple found =
      shared.attr("cached_cubin")(cache, "saxpy", text, nvrtc::nvrtc_options(90), 90, nvrtc,
                                  py::cpp_function([]() -> py::bytes { throw std::runtime_error("compiled again"); }));
  EXPECT_EQ(found[1].cast<std::string>(), "cache hit");
  EXPECT_EQ(found[0].cast<std::string>(), compiled.cubin);
  // Another compiler's identity is another entry: two compilers make two CUBINs of one text.
  EXPECT_NE(py::module_::import("lb_native").attr("cache_key")("workloads/saxpy/kernels.cu", text,
                                                              nvrtc::nvrtc_options(90), 90, "cuda.core 1.0")
                .cast<std::string>(),
            py::module_::import("lb_native").attr("cache_key")("workloads/saxpy/kernels.cu", text,
                                                              nvrtc::nvrtc_options(90), 90,
                                                              "nvrtc " + nvrtc::nvrtc_version())
                .cast<std::string>());
}

TEST_F(PythonKernelCache, ALayersOwnCompileThroughItsSessionLandsInTheCppCache) {
  START_EMBEDDED_PYTHON();
  // cuda-bindings' Session compiles our text with its own NVRTC (no GPU needed) into the run's cache.
  py::list path = py::module_::import("sys").attr("path");
  path.append((fs::path(LB_SOURCE_ROOT) / "variants" / "cuda-bindings").string());
  py::module_ layer;
  try {
    layer = py::module_::import("_cuda_bindings_layer");
  } catch (py::error_already_set& e) {
    GTEST_SKIP() << "the cuda-bindings layer does not import: " << python::python_error_line(e);
  }
  const py::object config = py::module_::import("lb_variant").attr("LayerConfig")(
      "cuda-bindings", py::module_::import("lb_native").attr("KernelCache")(dir_.string(), true));
  const py::tuple first = layer.attr("Session")(config).attr("cubin")("vector_add", 90);
  EXPECT_EQ(first[1].cast<std::string>(), "compiled");
  // C++ finds the entry under the key of the layer's inputs, and reads it as a hit.
  std::vector<std::string> layer_options;
  for (const py::handle o : layer.attr("nvrtc_options")(90)) layer_options.push_back(o.cast<std::string>());
  const nvrtc::KernelKey key = python_key("vector_add", layer.attr("compiler")().cast<std::string>(), layer_options);
  const nvrtc::CachedCubin read = nvrtc::cached_cubin({dir_.string(), true}, key, []() -> std::string {
    ADD_FAILURE() << "compiled again: the layer's entry was not found";
    return "";
  });
  EXPECT_TRUE(read.from_cache);
  EXPECT_EQ(read.cubin, first[0].cast<std::string>());
  EXPECT_EQ(read.cubin.rfind("\x7f" "ELF", 0), 0u);
  // The layer's next session (the next run) reads it too.
  EXPECT_EQ(layer.attr("Session")(config).attr("cubin")("vector_add", 90)[py::int_(1)].cast<std::string>(),
            "cache hit");
}

// The py-numpy test layer (tests/python_layers.cpp, linked in) has a Session in its support module
// (tests/python_layers/py-numpy/_py_numpy_layer.py) that records its life.
TEST(PythonBoundary, APythonSessionLivesAsLongAsItsLayerSession) {
  START_EMBEDDED_PYTHON();
  const Layer* layer = find_layer("py-numpy");
  ASSERT_NE(layer, nullptr);
  if (const std::string why = layer->unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  CostLog session_costs;
  std::unique_ptr<LayerSession> session = layer->open_session(LayerConfig{false, ""}, session_costs);
  const py::module_ support = py::module_::import("_py_numpy_layer");
  const py::list events = support.attr("EVENTS");
  const py::list sessions = support.attr("SESSIONS");
  ASSERT_GE(py::len(sessions), 1u);
  EXPECT_EQ(events[py::len(events) - 1].cast<std::string>(), "open py-numpy");
  py::object made = sessions[py::len(sessions) - 1]();  // the weak reference, followed
  ASSERT_FALSE(made.is_none());
  EXPECT_FALSE(made.attr("kernel_cache").attr("enabled").cast<bool>());  // --no-kernel-cache reached it

  {  // a variant receives it (vector_add counts its allocate() calls on it)
    const VariantFactory* factory = find_variant("py-numpy", "vector_add");
    ASSERT_NE(factory, nullptr);
    std::unique_ptr<Variant> variant = (*factory)();
    CostLog costs;
    variant->allocate(Shape{1, 8, 1}, lb::Setup{nullptr, &costs, session.get()});
    EXPECT_EQ(made.attr("allocations").cast<int>(), 1);
  }
  made = py::object();  // only the adapter holds it now
  EXPECT_FALSE(sessions[py::len(sessions) - 1]().is_none());
  const std::size_t before = py::len(events);
  session.reset();  // the harness closes the layer's session after the run
  ASSERT_EQ(py::len(events), before + 1);
  EXPECT_EQ(events[before].cast<std::string>(), "close py-numpy");
  EXPECT_TRUE(sessions[py::len(sessions) - 1]().is_none()) << "the session outlived its layer's session";
}

TEST(PythonBoundary, ALayerWithoutASessionClassGetsTheBaseOne) {
  START_EMBEDDED_PYTHON();
  const Layer* layer = find_layer("py-wrong");
  ASSERT_NE(layer, nullptr);
  if (const std::string why = layer->unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  CostLog costs;
  std::unique_ptr<LayerSession> session = layer->open_session(LayerConfig{}, costs);
  EXPECT_NE(session, nullptr);
  session.reset();  // closing the base session does nothing, and says nothing
}

// A Python object raising what the test asks for, as a variant would.
py::object raiser() {
  py::dict scope;
  py::exec(R"(
class CudaAPIError(Exception):  # Numba's name; matched by name, Numba need not be imported
    pass

class StudentError(Exception):
    pass

class Raiser:
    run_waits = False
    def run(self, stream, kind):
        raise {"memory": MemoryError("out of memory"), "cuda": CudaAPIError("[700] illegal address"),
               "student": StudentError("k.py:3: no"), "value": ValueError("bad size")}[kind]
)",
           scope);
  return scope;
}

TEST(PythonBoundary, PythonExceptionsBecomeTheHarnesssErrors) {
  START_EMBEDDED_PYTHON();
  const py::dict scope = raiser();
  python::VariantObject object(scope["Raiser"](), "test.py");
  EXPECT_THROW(object.call("run", 0, "memory"), DeviceOutOfMemory);
  EXPECT_THROW(object.call("run", 0, "cuda"), CudaError);
  try {
    object.call("run", 0, "value");
    ADD_FAILURE() << "no exception";
  } catch (const CudaError&) {
    ADD_FAILURE() << "a ValueError is no CUDA error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "test.py run(): ValueError: bad size");
  }
  // The labs' hook maps their own exception first.
  struct StudentMistake : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  const py::object student_error = scope["StudentError"];
  python::VariantObject lab(scope["Raiser"](), "lab runner", [student_error](const py::error_already_set& e) {
    if (e.matches(student_error)) throw StudentMistake(py::str(e.value()).cast<std::string>());
  });
  EXPECT_THROW(lab.call("run", 0, "student"), StudentMistake);
  EXPECT_THROW(lab.call("run", 0, "memory"), DeviceOutOfMemory);  // the rest as for the layers
}

TEST(PythonBoundary, EveryWorkloadsDescriptorReachesPythonWithItsShapes) {
  START_EMBEDDED_PYTHON();
  const Shape size{3, 5, 7};
  const py::object py_size = python::size_object(size);
  for (const Workload* w : all_workloads()) {
    SCOPED_TRACE(w->name());
    const WorkloadDescriptor& d = w->descriptor();
    const py::object workload = python::workload_object(d);
    EXPECT_EQ(workload.attr("name").cast<std::string>(), d.name);
    const py::tuple inputs = workload.attr("inputs");
    ASSERT_EQ(inputs.size(), d.inputs.size());
    for (std::size_t i = 0; i < d.inputs.size(); ++i) {
      EXPECT_EQ(inputs[i].attr("name").cast<std::string>(), d.inputs[i].name);
      EXPECT_EQ(inputs[i].attr("elements")(py_size).cast<std::int64_t>(), d.inputs[i].elements(size));
    }
    EXPECT_EQ(workload.attr("output").attr("elements")(py_size).cast<std::int64_t>(), w->output_elements(size));
    const py::tuple args = workload.attr("kernel_args");
    ASSERT_EQ(args.size(), d.kernel_args.size());
    for (std::size_t i = 0; i < d.kernel_args.size(); ++i) {
      EXPECT_EQ(args[i].attr("name").cast<std::string>(), d.kernel_args[i].name);
      if (d.kernel_args[i].kind == ArgKind::kSize)
        EXPECT_EQ(py_size.attr("extent")(args[i].attr("dim")).cast<std::int64_t>(), extent(size, d.kernel_args[i].dim));
    }
  }
  // matmul's, as the labs' runner shapes its arrays: A M x K, B K x N, C M x N.
  const py::object matmul = python::workload_object(find_workload("matmul")->descriptor());
  EXPECT_EQ(matmul.attr("inputs")[py::int_(1)].attr("shape")(py_size).cast<std::vector<std::int64_t>>(),
            (std::vector<std::int64_t>{7, 5}));
  EXPECT_EQ(matmul.attr("output").attr("shape")(py_size).cast<std::vector<std::int64_t>>(),
            (std::vector<std::int64_t>{3, 5}));
}

TEST(PythonBoundary, AProblemReachesPythonAsNamedViewsOfTheHarnesssBuffers) {
  START_EMBEDDED_PYTHON();
  HostProblem p;
  p.shape = {2, 3, 4};
  p.alpha = 1.5f;
  p.inputs.push_back(HostBuffer(6, 1.0f));
  p.output = HostBuffer(3, 2.0f);
  const py::object problem = python::problem_object(p);
  EXPECT_EQ(problem.attr("m").cast<int>(), 2);
  EXPECT_EQ(problem.attr("n").cast<int>(), 3);
  EXPECT_EQ(problem.attr("k").cast<int>(), 4);
  EXPECT_EQ(problem.attr("alpha").cast<float>(), 1.5f);
  EXPECT_TRUE(python::size_object(p.shape).equal(py::object(problem.attr("size"))));
  const auto input = py::array_t<float>(problem.attr("inputs")[py::int_(0)]);
  EXPECT_EQ(input.data(), p.inputs[0].data());  // a view, no copy
  EXPECT_FALSE(input.writeable());               // the inputs are read-only
}

}  // namespace
