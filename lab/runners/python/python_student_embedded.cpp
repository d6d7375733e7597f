// The Python labs through the embedded interpreter: layerbench.lab's rules check and runner (python/layerbench/lab),
// called through the boundary the Python layers use (variants/python/python_object.h: the
// exception mapping, lb_variant's Size/Setup/Problem, NumPy views, stream handles). A StudentError
// from Python is the student's (StudentCompileError: the file breaks the rules, does not parse or
// does not compile), mapped by this file's hook; any other Python exception is the runner's or the
// GPU's (a CUDA error from Numba, or layerbench.lab.GpuError, PyCUDA's and cuda.core's, becomes a
// CudaError, so that the check reports it as it reports the CUDA C++ labs' faults). The workload's
// buffers and kernel arguments reach the runner from its descriptor (lb_variant.Workload), not from
// a table of workload names. Which runner: its program class, module.Class, as
// lab/runners/runners.cpp registers it.
#include "lab/runners/python/python_student_embedded.h"

#ifdef LB_PYTHON_UNAVAILABLE

namespace lb::lab {

[[noreturn]] static void no_python(const std::filesystem::path& file) {
  throw StudentCompileError(file.string() + ": this build of layerbench cannot check Python labs: it has no "
                            "embeddable Python (" LB_PYTHON_UNAVAILABLE ")");
}
void check_python_lab_rules(const LabSpec&, const std::filesystem::path& file, const char*) { no_python(file); }
std::unique_ptr<StudentProgram> load_python_lab_kernels(const LabSpec&, const std::filesystem::path& file, int,
                                                        const StudentBuild&, const std::string&, const std::string&) {
  no_python(file);
}

}  // namespace lb::lab

#else

#include <pybind11/embed.h>

#include <cstdint>
#include <string>

#include "common/cuda_check.h"
#include "common/python_interpreter.h"
#include "variants/python/python_layer.h"
#include "variants/python/python_object.h"

namespace py = pybind11;

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

// The labs' Python package, layerbench.lab (python/layerbench/lab), imported once, with the package's
// root on sys.path (after the interpreter's own path and variants/python, where lb_numba is).
py::module_ lab_module(const fs::path& file) {
  if (const std::string why = embedded_python_unavailable_reason(); !why.empty())
    throw StudentCompileError(file.string() + ": cannot check a Python lab here: " + why);
  // Never released: the interpreter is never finalized (python_layer.cpp says why).
  static const py::module_* module = [] {
    py::list path = py::module_::import("sys").attr("path");
    const std::string dir = python_package_root();  // common/python_interpreter.h
    if (!path.contains(dir)) path.append(dir);
    return new py::module_(py::module_::import("layerbench.lab"));
  }();
  return *module;
}


// The runner's own exceptions: layerbench.lab.StudentError -> StudentCompileError (its text is the
// student's), GpuError -> CudaError. The others go on to the shared mapping (python::throw_mapped).
python::ErrorHook student_errors(const fs::path& file) {
  return [file](const py::error_already_set& e) {
    if (e.matches(lab_module(file).attr("StudentError"))) throw StudentCompileError(py::str(e.value()).cast<std::string>());
    if (e.matches(lab_module(file).attr("GpuError"))) throw CudaError(py::str(e.value()).cast<std::string>(), -1);
  };
}

template <class Call>
auto checked(const fs::path& file, const std::string& what, Call&& call) {
  return python::checked(what, std::forward<Call>(call), student_errors(file));
}

py::list argument_names(const LabSpec& spec) {
  py::list names;
  for (const std::string& a : spec.arguments) names.append(a);
  return names;
}

// One size of the student's kernel: layerbench.lab.Variant, an lb_variant.Variant with the lab's
// calls for timing (device_pointers, set_alpha: lab/child/fresh_inputs.h) and its guard zone (first_write_past_end). The lab's
// session (the driver layer's, in Setup) is C++'s: the runner gets none.
class PythonStudentVariant final : public StudentVariant {
 public:
  PythonStudentVariant(const fs::path& file, py::object variant)
      : object_(std::move(variant), "lab runner", student_errors(file)) {}
  void allocate(const Shape& s, const Setup& setup) override {
    object_.allocate(s, setup.stream, setup.costs, py::none());
  }
  void upload(const HostProblem& p, cudaStream_t stream) override { object_.upload(p, stream); }
  void run(cudaStream_t stream) override { object_.run(stream); }
  void download(std::span<float> out, cudaStream_t stream) override { object_.download(out, stream); }
  bool run_waits() const override { return object_.run_waits(); }
  DeviceBuffers device_buffers() override {
    // Raw addresses as Python ints, of memory the runner allocated on the primary context, the
    // one the harness's stream and the fill kernel use.
    const py::tuple pointers = object_.call("device_pointers").cast<py::tuple>();
    DeviceBuffers buffers;
    for (const py::handle input : pointers[0].cast<py::list>())
      buffers.inputs.push_back(reinterpret_cast<float*>(input.cast<std::uintptr_t>()));
    buffers.output = reinterpret_cast<float*>(pointers[1].cast<std::uintptr_t>());
    return buffers;
  }
  void set_scalar(float alpha) override { object_.call("set_alpha", alpha); }
  std::int64_t first_write_past_end(cudaStream_t stream) const override {
    // const: the guard is read, nothing of the variant changes (VariantObject's call is not const).
    return const_cast<python::VariantObject&>(object_)
        .call("first_write_past_end", python::stream_handle(stream))
        .cast<std::int64_t>();
  }

 private:
  python::VariantObject object_;
};

class PythonProgram final : public StudentProgram {
 public:
  PythonProgram(fs::path file, py::object program) : file_(std::move(file)), program_(std::move(program)) {}
  std::unique_ptr<StudentVariant> make_variant() override {
    py::object variant = checked(file_, "lab runner make_variant()", [&] { return program_.attr("make_variant")(); });
    return std::make_unique<PythonStudentVariant>(file_, std::move(variant));
  }

 private:
  fs::path file_;
  py::object program_;
};

}  // namespace

void check_python_lab_rules(const LabSpec& spec, const fs::path& file, const char* check) {
  const py::module_ module = lab_module(file);
  checked(file, "lab rules check", [&] {
    module.attr(check)(file.string(), spec.kernel, static_cast<int>(spec.arguments.size()));
  });
}

std::unique_ptr<StudentProgram> load_python_lab_kernels(const LabSpec& spec, const fs::path& file, int sm_count,
                                                        const StudentBuild& build, const std::string& program_class,
                                                        const std::string& cubin) {
  const py::module_ module = lab_module(file);
  py::list block;
  block.append(spec.launch.block_x);
  if (spec.launch.grid == GridRule::kCoverMN) block.append(spec.launch.block_y);
  const char* grid = spec.launch.grid == GridRule::kCoverN       ? "cover_n"
                     : spec.launch.grid == GridRule::kGridStride ? "grid_stride"
                                                                 : "cover_mn";
  py::object program = checked(file, "lab runner load()", [&] {
    return module.attr("load")(file.string(), spec.kernel, argument_names(spec),
                               python::workload_object(spec.workload->descriptor()), block, grid,
                               py::arg("line_info") = build.line_info, py::arg("exact_buffers") = build.exact_buffers,
                               py::arg("output_starts_zero") = spec.output_starts_zero,
                               py::arg("sm_count") = sm_count, py::arg("program") = program_class,
                               py::arg("cubin") = py::bytes(cubin));
  });
  return std::make_unique<PythonProgram>(file, std::move(program));
}

}  // namespace lb::lab

#endif
