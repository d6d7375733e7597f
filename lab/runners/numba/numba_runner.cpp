#include "lab/runners/numba/numba_runner.h"

#include "common/python_interpreter.h"
#include "lab/runners/compiled_ptx.h"
#include "lab/runners/numba/numba_kernel.h"
#include "lab/runners/nvrtc/lab_kernel.h"
#include "lab/runners/python/python_student.h"  // precheck_python_file: the rules, in the parent

namespace lb::lab {

std::filesystem::path NumbaRunner::student_executable() const { return chosen_python(); }

void NumbaRunner::precheck(const LabSpec& spec, const std::filesystem::path& file) const {
  precheck_python_file(spec, file);
}

std::string NumbaRunner::compile_failed_rule(const std::string& file_name) const {
  return file_name +
         " breaks the Python lab's rules or does not compile (it may define @cuda.jit kernels, import numba and "
         "math, and assign constants; nothing else runs)";
}

std::unique_ptr<StudentProgram> NumbaRunner::load(const LabSpec& spec, const std::filesystem::path& file,
                                                  const TargetDevice& device, const StudentBuild& build) const {
  const NumbaPtx compiled = compile_numba_kernel(spec, file, device.sm, build);
  // The PTX loaded (the driver compiles it for this GPU), launched as Numba's kernels take their arguments.
  const bool exact = build.exact_buffers;
  return std::make_unique<LoadedProgram>(ptx_program(compiled.ptx), compiled.entry,
                                         [&spec, device, exact](driver::Kernel kernel) {
                                           return std::make_unique<StudentKernel>(spec, kernel, device, exact,
                                                                                  KernelAbi::kNumba);
                                         });
}

}  // namespace lb::lab
