#include "lab/runners/numba/numba_runner.h"

#include "lab/runners/numba/numba_kernel.h"
#include "lab/runners/nvrtc/lab_kernel.h"
#include "lab/runners/python/python_student.h"  // precheck_python_file: the rules, in the parent

namespace lb::lab {
namespace {

// The PTX as the driver layer's Module takes a program: cuModuleLoadData takes PTX text (its NUL
// at the end, which std::string keeps) as it takes a cubin.
driver::CompiledProgram as_program(const NumbaPtx& compiled) {
  driver::CompiledProgram program;
  program.cubin = compiled.ptx;
  return program;
}

// The compiled kernel loaded on the current context (the PTX, which the driver compiles for this
// GPU), a StudentKernel per size that launches it as Numba's kernels take their arguments.
class NumbaProgram final : public StudentProgram {
 public:
  NumbaProgram(const LabSpec& spec, const NumbaPtx& compiled, const TargetDevice& device, bool exact_buffers)
      : spec_(spec), module_(as_program(compiled)), kernel_(module_.kernel(compiled.entry)),
        device_(device), exact_buffers_(exact_buffers) {}
  std::unique_ptr<StudentVariant> make_variant() override {
    return std::make_unique<StudentKernel>(spec_, kernel_, device_, exact_buffers_, KernelAbi::kNumba);
  }

 private:
  const LabSpec& spec_;
  driver::Module module_;
  driver::Kernel kernel_;
  TargetDevice device_;
  bool exact_buffers_;
};

}  // namespace

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
  return std::make_unique<NumbaProgram>(spec, compiled, device, build.exact_buffers);
}

}  // namespace lb::lab
