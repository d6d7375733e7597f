// The Python labs through the embedded interpreter: lab/lb_lab_python.py's rules check and runner,
// called with pybind11. A StudentError from Python is the student's (StudentCompileError: the
// file breaks the rules, does not parse or does not compile); any other Python exception is the
// runner's or the GPU's (a CUDA error from Numba becomes a CudaError, so that the check reports
// it as it reports the CUDA C++ labs' faults).
#include "lab/python_student_embedded.h"

#ifdef LB_PYTHON_UNAVAILABLE

namespace lb::lab {

[[noreturn]] static void no_python(const std::filesystem::path& file) {
  throw StudentCompileError(file.string() + ": this build of layerbench cannot check Python labs: it has no "
                            "embeddable Python (" LB_PYTHON_UNAVAILABLE ")");
}
void check_python_lab_rules(const LabSpec&, const std::filesystem::path& file) { no_python(file); }
std::unique_ptr<StudentProgram> load_python_lab_kernels(const LabSpec&, const std::filesystem::path& file, int,
                                                        const StudentBuild&) {
  no_python(file);
}

}  // namespace lb::lab

#else

#include <pybind11/embed.h>

#include <cstdint>
#include <string>

#include "common/cuda_check.h"
#include "variants/python/embedded_python.h"
#include "variants/python/python_layer.h"

namespace py = pybind11;

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

// lab/lb_lab_python.py, imported once, with lab/ on sys.path (after the interpreter's own path and
// variants/python, where lb_numba is).
py::module_ lab_module(const fs::path& file) {
  if (const std::string why = embedded_python_unavailable_reason(); !why.empty())
    throw StudentCompileError(file.string() + ": cannot check a Python lab here: " + why);
  // Never released: the interpreter is never finalized (python_layer.cpp says why).
  static const py::module_* module = [] {
    py::list path = py::module_::import("sys").attr("path");
    const std::string dir = (fs::path(LB_SOURCE_ROOT) / "lab").string();
    if (!path.contains(dir)) path.append(dir);
    return new py::module_(py::module_::import("lb_lab_python"));
  }();
  return *module;
}


// Runs `call`: lb_lab_python.StudentError -> StudentCompileError (its text is the student's);
// MemoryError -> DeviceOutOfMemory; Numba's CudaAPIError -> CudaError; else std::runtime_error.
template <class Call>
auto checked(const fs::path& file, const std::string& what, Call&& call) {
  try {
    return call();
  } catch (py::error_already_set& e) {
    if (e.matches(lab_module(file).attr("StudentError"))) throw StudentCompileError(py::str(e.value()).cast<std::string>());
    if (e.matches(PyExc_MemoryError)) throw DeviceOutOfMemory(what + ": " + python_error_line(e), cudaErrorMemoryAllocation);
    const std::string type = e.type() ? py::str(e.type().attr("__name__")).cast<std::string>() : "";
    if (type == "CudaAPIError" || type == "CudaDriverError") throw CudaError(python_error_line(e), -1);
    throw std::runtime_error(what + ": " + python_error_line(e));
  }
}

py::list argument_names(const LabSpec& spec) {
  py::list names;
  for (const std::string& a : spec.arguments) names.append(a);
  return names;
}


// A HostProblem as the runner reads it: NumPy views of its buffers (no copies).
py::object problem_of(const HostProblem& p) {
  py::list inputs;
  for (const HostBuffer& input : p.inputs) inputs.append(numpy_view(input, false));
  return py::module_::import("types").attr("SimpleNamespace")(
      py::arg("shape") = py::make_tuple(p.shape.m, p.shape.n, p.shape.k), py::arg("alpha") = p.alpha,
      py::arg("inputs") = inputs, py::arg("output") = numpy_view(p.output, false));
}

// One size of the student's kernel: lb_lab_python.Variant's calls.
class PythonStudentVariant final : public StudentVariant {
 public:
  PythonStudentVariant(const LabSpec& spec, fs::path file, py::object variant, int sm_count)
      : spec_(spec), file_(std::move(file)), object_(std::move(variant)), sm_count_(sm_count) {}
  void allocate(const Shape& s, const Setup& setup) override {
    CostLog* costs = setup.costs;
    const py::cpp_function report([costs](const std::string& what, double ms) {
      if (costs) costs->add(what, ms);
    });
    call("allocate", py::make_tuple(s.m, s.n, s.k), stream_handle(setup.stream), report, spec_.output_starts_zero, sm_count_);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override { call("upload", problem_of(p), stream_handle(stream)); }
  void run(cudaStream_t stream) override { call("run", stream_handle(stream)); }
  void download(std::span<float> out, cudaStream_t stream) override { call("download", numpy_view(out, true), stream_handle(stream)); }
  void upload_pools(const HostProblem& p, cudaStream_t stream) override { call("upload_pools", problem_of(p), stream_handle(stream)); }
  void use_windows(const SampleWindows& w, cudaStream_t stream) override {
    py::list offsets;
    for (const std::int64_t offset : w.input_offsets) offsets.append(offset);
    call("use_windows", offsets, w.output_offset, stream_handle(stream));
  }
  std::int64_t first_write_past_end(cudaStream_t stream) const override {
    return checked(file_, "lab runner first_write_past_end()", [&] {
      return object_.attr("first_write_past_end")(stream_handle(stream)).cast<std::int64_t>();
    });
  }

 private:
  template <class... Args>
  void call(const char* method, Args&&... args) {
    checked(file_, std::string("lab runner ") + method + "()", [&] { object_.attr(method)(std::forward<Args>(args)...); });
  }
  const LabSpec& spec_;
  fs::path file_;
  py::object object_;
  int sm_count_;
};

class PythonProgram final : public StudentProgram {
 public:
  PythonProgram(const LabSpec& spec, fs::path file, py::object program, int sm_count)
      : spec_(spec), file_(std::move(file)), program_(std::move(program)), sm_count_(sm_count) {}
  std::unique_ptr<StudentVariant> make_variant() override {
    py::object variant = checked(file_, "lab runner make_variant()", [&] { return program_.attr("make_variant")(); });
    return std::make_unique<PythonStudentVariant>(spec_, file_, std::move(variant), sm_count_);
  }

 private:
  const LabSpec& spec_;
  fs::path file_;
  py::object program_;
  int sm_count_;
};

}  // namespace

void check_python_lab_rules(const LabSpec& spec, const fs::path& file) {
  const py::module_ module = lab_module(file);
  checked(file, "lab rules check", [&] {
    module.attr("check_file")(file.string(), spec.kernel, static_cast<int>(spec.arguments.size()));
  });
}

std::unique_ptr<StudentProgram> load_python_lab_kernels(const LabSpec& spec, const fs::path& file, int sm_count,
                                                        const StudentBuild& build) {
  const py::module_ module = lab_module(file);
  py::list block;
  block.append(spec.launch.block_x);
  if (spec.launch.grid == GridRule::kCoverMN) block.append(spec.launch.block_y);
  const char* grid = spec.launch.grid == GridRule::kCoverN       ? "cover_n"
                     : spec.launch.grid == GridRule::kGridStride ? "grid_stride"
                                                                 : "cover_mn";
  py::object program = checked(file, "lab runner load()", [&] {
    return module.attr("load")(file.string(), spec.kernel, argument_names(spec), spec.workload->name(), block, grid,
                               build.line_info, build.exact_buffers);
  });
  return std::make_unique<PythonProgram>(spec, file, std::move(program), sm_count);
}

}  // namespace lb::lab

#endif
