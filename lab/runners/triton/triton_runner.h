// The triton runner (lab 10): a Python file of @triton.jit functions, held to the Triton lab's rules
// (python/layerbench/lab/rules.py's TRITON dialect, checked in the parent on its syntax tree, which
// runs nothing of it), compiled to PTX by Triton in a compile process of its own
// (lab/runners/compile_process.h: limits, a scrubbed environment, no seed, its own folder and
// Triton cache), the only process where the file is imported. The child takes back the PTX, its
// entry, its warps and its dynamic shared memory (triton_kernel.h), checks them, loads the PTX
// through the driver API and launches it as lab_kernel.h's KernelAbi::kTriton says: the lab's
// arguments as their C types, Triton's two scratch pointers null, the lab's grid, a block of
// num_warps * 32 threads (the lab's block), the compile's dynamic shared memory. The harness checks
// and times it as it does the nvrtc runner's kernels. No Python runs in the child. Registered after
// the numba runner, so a .py lab without "runner" stays Numba's.
#pragma once
#include "lab/runners/kernel_runner.h"

namespace lb::lab {

class TritonRunner final : public KernelRunner {
 public:
  using KernelRunner::KernelRunner;
  bool embedded_python() const override { return true; }        // the rules check, in the parent
  std::filesystem::path student_executable() const override;  // the interpreter (chosen_python)
  bool runs_folder_workloads() const override { return true; }  // FolderStudentKernel, KernelAbi::kTriton
  void precheck(const LabSpec& spec, const std::filesystem::path& file) const override;
  std::string compile_failed_as() const override { return "is not a lab file the runner can use"; }
  std::string compile_failed_rule(const std::string& file_name) const override;
  std::unique_ptr<StudentProgram> load(const LabSpec& spec, const std::filesystem::path& file,
                                       const TargetDevice& device, const StudentBuild& build) const override;
};

}  // namespace lb::lab
