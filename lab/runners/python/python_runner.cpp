#include "lab/runners/python/python_runner.h"

#include "lab/runners/nvrtc/lab_kernel.h"  // compile_student_kernel: kernel text, checked on the host
#include "lab/runners/python/python_student.h"

namespace lb::lab {

void PythonRunner::precheck(const LabSpec& spec, const std::filesystem::path& file) const {
  // CUDA C++ kernel text (PyCUDA's nvcc or cuda.core's NVRTC compile it in the child): compiled
  // alone for sm_90 here, so that compile errors show without a GPU.
  compile_student_kernel(spec, file, kHostCheckSm, /*use_cache=*/true);
}

std::unique_ptr<StudentProgram> PythonRunner::load(const LabSpec& spec, const std::filesystem::path& file,
                                                   const TargetDevice& device, const StudentBuild& build) const {
  return load_python_program(spec, file, device, build, program_);
}

}  // namespace lb::lab
