// The numba runner (lab 5): a Python file of @cuda.jit kernels, held to the Python lab's rules
// (python/layerbench/lab/rules.py, checked in the parent on its syntax tree, which runs nothing of
// it), compiled to PTX by Numba in a compile process of its own (lab/runners/compile_process.h:
// limits, a scrubbed environment, no seed, its own folder), the only process where the file is
// imported. The child takes back the PTX and its entry name (numba_kernel.h), checks them, loads
// the PTX through the driver API and launches it as a Numba kernel takes its arguments
// (lab_kernel.h's KernelAbi::kNumba); the harness checks and times it as it does the nvrtc
// runner's kernels. No Python runs in the child.
#pragma once
#include "lab/runners/kernel_runner.h"

namespace lb::lab {

class NumbaRunner final : public KernelRunner {
 public:
  using KernelRunner::KernelRunner;
  bool embedded_python() const override { return true; }  // the rules check, in the parent
  std::filesystem::path student_executable() const override;  // the interpreter (chosen_python)
  void precheck(const LabSpec& spec, const std::filesystem::path& file) const override;
  std::string compile_failed_as() const override { return "is not a lab file the runner can use"; }
  std::string compile_failed_rule(const std::string& file_name) const override;
  std::unique_ptr<StudentProgram> load(const LabSpec& spec, const std::filesystem::path& file,
                                       const TargetDevice& device, const StudentBuild& build) const override;
};

}  // namespace lb::lab
