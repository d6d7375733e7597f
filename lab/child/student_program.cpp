#include "lab/child/student_program.h"

#include "lab/runners/nvrtc/lab_kernel.h"
#include "lab/runners/python/python_student.h"
#include "lab/runners/host_trip/trip_build.h"

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

bool is_python_lab(const LabSpec& spec) { return spec.runner == LabRunner::kNumba; }

bool needs_embedded_python(const LabSpec& spec) { return runs_in_embedded_python(spec.runner); }

void precheck_student_file(const LabSpec& spec, const std::filesystem::path& file) {
  if (is_python_lab(spec)) return precheck_python_file(spec, file);
  // Host code, built with nvcc in the child only: its rules on the text here, without a GPU.
  if (spec.runner == LabRunner::kNvccHost) return check_student_source(file);
  // CUDA C++ kernel text, whichever runner launches it (NVRTC here, PyCUDA's nvcc or cuda.core's
  // NVRTC in the child): compiled alone for sm_90, so that compile errors show without a GPU.
  compile_student_kernel(spec, file, kHostCheckSm, /*use_cache=*/true);
}

std::unique_ptr<StudentProgram> load_student_program(const LabSpec& spec, const std::filesystem::path& file,
                                                     const TargetDevice& device, const StudentBuild& build) {
  if (needs_embedded_python(spec)) return load_python_program(spec, file, device, build);
  const driver::CompiledProgram compiled = compile_student_kernel(spec, file, device.sm, /*use_cache=*/true, build);
  return std::make_unique<CudaProgram>(spec, compiled, device.sm_count, build.exact_buffers);
}

}  // namespace lb::lab
