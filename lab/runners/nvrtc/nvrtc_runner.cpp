#include "lab/runners/nvrtc/nvrtc_runner.h"

#include "lab/runners/nvrtc/lab_kernel.h"

namespace lb::lab {
namespace {

// A CUDA C++ submission: one module, one kernel, a StudentKernel per size.
class CudaProgram final : public StudentProgram {
 public:
  CudaProgram(const LabSpec& spec, const driver::CompiledProgram& compiled, int sm_count, bool exact_buffers)
      : spec_(spec), module_(compiled), kernel_(module_.kernel(spec.kernel)), sm_count_(sm_count),
        exact_buffers_(exact_buffers) {}
  std::unique_ptr<StudentVariant> make_variant() override {
    return std::make_unique<StudentKernel>(spec_, kernel_, sm_count_, exact_buffers_);
  }

 private:
  const LabSpec& spec_;
  driver::Module module_;
  driver::Kernel kernel_;
  int sm_count_;
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
  return std::make_unique<CudaProgram>(spec, compiled, device.sm_count, build.exact_buffers);
}

}  // namespace lb::lab
