// The nvrtc runner: a CUDA C++ file of device code compiled alone with NVRTC, loaded and launched
// through the driver layer (lab/runners/nvrtc/lab_kernel.h; a lab on a workload folder:
// folder_kernel.h). Labs 1-4 and 9.
#pragma once
#include "lab/runners/kernel_runner.h"

namespace lb::lab {

class NvrtcRunner final : public KernelRunner {
 public:
  using KernelRunner::KernelRunner;
  bool runs_folder_workloads() const override { return true; }  // lab/runners/nvrtc/folder_kernel.h
  void precheck(const LabSpec& spec, const std::filesystem::path& file) const override;
  std::unique_ptr<StudentProgram> load(const LabSpec& spec, const std::filesystem::path& file,
                                       const TargetDevice& device, const StudentBuild& build) const override;
  // The kernel compile process (limited_compile.h), which every kernel-text runner's compile runs.
  int run_helper(const std::vector<std::string>& args) const override;
};

}  // namespace lb::lab
