// The student's kernel of a lab on a workload folder (lab.json's "workload_dir"), as a variant: the
// nvrtc runner's StudentKernel (lab_kernel.h) for a folder's typed buffers. One device buffer per
// workload.json buffer, each output followed by the same guard zone as StudentKernel's output
// (none with exact buffers); the kernel's parameters bound in workload.json's order (buffers as
// device pointers, scalars as their typed values' bytes, m, n, k as long long); launched with the
// folder's block, its grid formula or a grid-stride grid (as many blocks as fill the device) and
// its dynamic shared memory, on the harness's stream: the launch the driver layer's variant of the
// folder ("ours", variants/driver/workload_folder.cpp) makes. The bytes are the harness's
// (workloads/folder/folder_workload.h: inputs one HostBuffer each, the outputs packed into one);
// this moves them and never reads their types: the check is the folder's reference.py. With
// KernelAbi::kTriton (lab_kernel.h): Triton's two trailing pointers follow the folder's parameters,
// null, and the launch's dynamic shared memory is the compile's `shared_bytes`, not the folder's.
#pragma once
#include <array>
#include <vector>

#include "lab/child/student_program.h"
#include "lab/runners/nvrtc/lab_kernel.h"  // KernelAbi
#include "lab/spec/lab_spec.h"
#include "variants/driver/kernel_program.h"

namespace lb::lab {

class FolderStudentKernel final : public StudentVariant {
 public:
  FolderStudentKernel(const LabSpec& spec, driver::Kernel kernel, const TargetDevice& device, bool exact_buffers,
                      KernelAbi abi = KernelAbi::kC, unsigned shared_bytes = 0);
  void allocate(const Shape& shape, const Setup& setup) override;
  // Every input, every output's starting contents (poison or zero, as workload.json's starts_as
  // says) and every guard zone: what the check uploads, and each timed sample's fresh problem
  // (lab/child/fresh_inputs.h, drawn on the host).
  void upload(const HostProblem& problem, cudaStream_t stream) override;
  void run(cudaStream_t stream) override;
  void download(std::span<float> out, cudaStream_t stream) override;
  // Past the end of the first output (in workload.json's order) whose guard zone changed, in floats.
  std::int64_t first_write_past_end(cudaStream_t stream) const override;
  DeviceBuffers device_buffers() override;
  void set_scalar(float) override {}  // a folder's scalars are workload.json's values, passed as they are

 private:
  std::int64_t guard_floats() const;
  const FolderWorkload& workload_;
  driver::Kernel kernel_;
  TargetDevice device_;
  bool exact_buffers_;
  KernelAbi abi_;
  unsigned shared_bytes_;  // each launch's dynamic shared memory
  FolderLayout layout_;
  std::vector<driver::DeviceMemory> buffers_;  // one per workload.json buffer
  driver::ArgumentSlots args_;
  std::array<unsigned, 3> grid_{1, 1, 1};
};

}  // namespace lb::lab
