// A Python lab's submission (docs/labs.md, "Python labs"): a Numba file's rules check in the parent,
// a kernel text's PyCUDA or cuda.core program in the child. The Python and pybind11 side lives in
// python_student_embedded.cpp, built with the Python layers (where pybind11 is found).
#include "lab/runners/python/python_student.h"

#include <fstream>

#include "lab/runners/nvrtc/lab_kernel.h"  // compile_student_kernel: the kernel text's rules and limited compile
#include "lab/runners/python/python_student_embedded.h"
#include "lab/runners/runner.h"

namespace lb::lab {
namespace {

void require_readable(const std::filesystem::path& file) {
  if (!std::ifstream(file)) throw UsageError("cannot read " + file.string());
}

}  // namespace

void precheck_python_file(const LabSpec& spec, const std::filesystem::path& file, PythonLabRules rules) {
  require_readable(file);
  check_python_lab_rules(spec, file, rules == PythonLabRules::kTriton ? "check_triton_file" : "check_file");
}

std::unique_ptr<StudentProgram> load_python_program(const LabSpec& spec, const std::filesystem::path& file,
                                                    const TargetDevice& device, const StudentBuild& build,
                                                    const std::string& program) {
  require_readable(file);
  // Compiled for this GPU in the limited compile process, as the nvrtc runner's are (NVRTC, with
  // -G or line info as the build asks): the child, which holds the grade's keys, compiles nothing
  // of the student's text; PyCUDA or cuda.core loads the CUBIN.
  const driver::CompiledProgram compiled = compile_student_kernel(spec, file, device.sm, /*use_cache=*/true, build);
  return load_python_lab_kernels(spec, file, device.sm_count, build, program, compiled.cubin);
}

}  // namespace lb::lab
