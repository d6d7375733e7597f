#include "lab/runners/python/python_runner.h"

#include "lab/runners/nvrtc/lab_kernel.h"  // compile_student_kernel: kernel text, checked on the host
#include "lab/runners/python/python_student.h"

namespace lb::lab {

void PythonRunner::precheck(const LabSpec& spec, const std::filesystem::path& file) const {
  // CUDA C++ kernel text (compiled for the GPU in the child's limited compile process, loaded by
  // PyCUDA or cuda.core): checked against the kernel-text rules and compiled alone for sm_90 in a
  // limited compile process here, so that errors show without a GPU.
  compile_student_kernel(spec, file, kHostCheckSm, /*use_cache=*/true);
}

std::unique_ptr<StudentProgram> PythonRunner::load(const LabSpec& spec, const std::filesystem::path& file,
                                                   const TargetDevice& device, const StudentBuild& build) const {
  return load_python_program(spec, file, device, build, program_);
}

}  // namespace lb::lab
