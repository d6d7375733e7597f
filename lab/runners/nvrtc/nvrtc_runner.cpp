#include "lab/runners/nvrtc/nvrtc_runner.h"

#include "lab/runners/nvrtc/folder_kernel.h"
#include "lab/runners/nvrtc/lab_kernel.h"

namespace lb::lab {

// Compiled alone for sm_90, so that compile errors show without a GPU.
void NvrtcRunner::precheck(const LabSpec& spec, const std::filesystem::path& file) const {
  compile_student_kernel(spec, file, kHostCheckSm, /*use_cache=*/true);
}

std::unique_ptr<StudentProgram> NvrtcRunner::load(const LabSpec& spec, const std::filesystem::path& file,
                                                  const TargetDevice& device, const StudentBuild& build) const {
  const driver::CompiledProgram compiled = compile_student_kernel(spec, file, device.sm, /*use_cache=*/true, build);
  // A StudentKernel, or for a lab on a workload folder a FolderStudentKernel, chosen once, here.
  const bool exact = build.exact_buffers;
  if (spec.folder)
    return std::make_unique<LoadedProgram>(compiled, spec.kernel, [&spec, device, exact](driver::Kernel kernel) {
      return std::make_unique<FolderStudentKernel>(spec, kernel, device, exact);
    });
  return std::make_unique<LoadedProgram>(compiled, spec.kernel, [&spec, device, exact](driver::Kernel kernel) {
    return std::make_unique<StudentKernel>(spec, kernel, device, exact);
  });
}

}  // namespace lb::lab
