#include "lab/runners/nvrtc/nvrtc_runner.h"

#include "lab/runners/nvrtc/folder_kernel.h"
#include "lab/runners/nvrtc/lab_kernel.h"

namespace lb::lab {
namespace {

// A CUDA C++ submission: one module, one kernel, a variant per size: a StudentKernel (lab_kernel.h),
// or for a lab on a workload folder a FolderStudentKernel (folder_kernel.h), chosen once, in load().
template <class KernelVariant>
class CudaProgram final : public StudentProgram {
 public:
  CudaProgram(const LabSpec& spec, const driver::CompiledProgram& compiled, const TargetDevice& device,
              bool exact_buffers)
      : spec_(spec), module_(compiled), kernel_(module_.kernel(spec.kernel)), device_(device),
        exact_buffers_(exact_buffers) {}
  std::unique_ptr<StudentVariant> make_variant() override {
    return std::make_unique<KernelVariant>(spec_, kernel_, device_, exact_buffers_);
  }

 private:
  const LabSpec& spec_;
  driver::Module module_;
  driver::Kernel kernel_;
  TargetDevice device_;
  bool exact_buffers_;
};

}  // namespace

// Compiled alone for sm_90, so that compile errors show without a GPU.
void NvrtcRunner::precheck(const LabSpec& spec, const std::filesystem::path& file) const {
  compile_student_kernel(spec, file, kHostCheckSm, /*use_cache=*/true);
}

std::unique_ptr<StudentProgram> NvrtcRunner::load(const LabSpec& spec, const std::filesystem::path& file,
                                                  const TargetDevice& device, const StudentBuild& build) const {
  const driver::CompiledProgram compiled = compile_student_kernel(spec, file, device.sm, /*use_cache=*/true, build);
  if (spec.folder) return std::make_unique<CudaProgram<FolderStudentKernel>>(spec, compiled, device, build.exact_buffers);
  return std::make_unique<CudaProgram<StudentKernel>>(spec, compiled, device, build.exact_buffers);
}

}  // namespace lb::lab
