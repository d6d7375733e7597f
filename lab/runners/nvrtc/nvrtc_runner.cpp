#include "lab/runners/nvrtc/nvrtc_runner.h"

#include "lab/runners/nvrtc/folder_kernel.h"
#include "lab/runners/nvrtc/lab_kernel.h"

namespace lb::lab {

// Checked against the kernel-text rules and compiled alone for sm_90, in the limited compile
// process, so that broken rules and compile errors show without a GPU, and nothing of the file is
// compiled in this process, which holds the grade's secret.
void NvrtcRunner::precheck(const LabSpec& spec, const std::filesystem::path& file) const {
  compile_student_kernel(spec, file, kHostCheckSm, /*use_cache=*/true);
}

int NvrtcRunner::run_helper(const std::vector<std::string>& args) const { return run_kernel_compile_helper(args); }

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
