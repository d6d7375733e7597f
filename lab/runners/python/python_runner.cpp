#include "lab/runners/python/python_runner.h"

#include "lab/runners/nvrtc/lab_kernel.h"  // compile_student_kernel: kernel text, checked on the host
#include "lab/runners/python/python_student.h"

namespace lb::lab {

void PythonRunner::precheck(const LabSpec& spec, const std::filesystem::path& file) const {
  if (python_file()) return precheck_python_file(spec, file);
  // CUDA C++ kernel text (PyCUDA's nvcc or cuda.core's NVRTC compile it in the child): compiled
  // alone for sm_90 here, so that compile errors show without a GPU.
  compile_student_kernel(spec, file, kHostCheckSm, /*use_cache=*/true);
}

std::string PythonRunner::compile_failed_as() const {
  return python_file() ? "is not a lab file the runner can use" : Runner::compile_failed_as();
}

std::string PythonRunner::compile_failed_rule(const std::string& file_name) const {
  if (!python_file()) return Runner::compile_failed_rule(file_name);
  return file_name +
         " breaks the Python lab's rules or does not compile (it may define @cuda.jit kernels, import numba and "
         "math, and assign constants; nothing else runs)";
}

std::unique_ptr<StudentProgram> PythonRunner::load(const LabSpec& spec, const std::filesystem::path& file,
                                                   const TargetDevice& device, const StudentBuild& build) const {
  return load_python_program(spec, file, device, build, program_);
}

}  // namespace lb::lab
