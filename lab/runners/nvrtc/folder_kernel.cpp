#include "lab/runners/nvrtc/folder_kernel.h"

#include <cstring>

#include "lab/runners/nvrtc/lab_kernel.h"  // StudentKernel::kGuardFloats, guard_pattern, kGuardBits

namespace lb::lab {
namespace {

// The floats of HostProblem::output (or a result) that hold output `p`.
std::span<const float> output_floats(std::span<const float> packed, const FolderLayout::Place& p) {
  return packed.subspan(static_cast<std::size_t>(p.offset / 4), static_cast<std::size_t>(floats_for(p.bytes)));
}

}  // namespace

FolderStudentKernel::FolderStudentKernel(const LabSpec& spec, driver::Kernel kernel, const TargetDevice& device,
                                         bool exact_buffers, KernelAbi abi, unsigned shared_bytes)
    : workload_(*spec.folder),
      kernel_(kernel),
      device_(device),
      exact_buffers_(exact_buffers),
      abi_(abi),
      shared_bytes_(abi == KernelAbi::kTriton ? shared_bytes : spec.folder->spec().kernels.front().launch.shared_bytes) {}

std::int64_t FolderStudentKernel::guard_floats() const { return exact_buffers_ ? 0 : StudentKernel::kGuardFloats; }

void FolderStudentKernel::allocate(const Shape& shape, const Setup&) {
  const FolderKernel& spec = workload_.spec().kernels.front();  // a lab's folder has one (lab_spec.cpp)
  driver::allow_shared_bytes(kernel_, shared_bytes_);
  layout_ = workload_.layout(shape);
  buffers_.clear();
  for (const FolderLayout::Place& p : layout_.buffers)
    buffers_.emplace_back(static_cast<std::size_t>(floats_for(p.bytes) + (p.output ? guard_floats() : 0)));
  // The parameters bound as every layer binds a folder's (FolderArguments), into the driver's slots.
  std::vector<std::uint64_t> addresses;
  for (const driver::DeviceMemory& buffer : buffers_) addresses.push_back(static_cast<std::uint64_t>(buffer.get()));
  args_ = {};
  for (const std::uint64_t slot : FolderArguments(spec, shape, std::move(addresses)).slots()) args_.push(slot);
  if (abi_ == KernelAbi::kTriton)
    for (int i = 0; i < kTritonTrailingPointers; ++i) args_.push(static_cast<void*>(nullptr));
  grid_ = spec.launch.grid_stride
              ? std::array<unsigned, 3>{grid_stride_blocks(spec.launch.block, device_.sm_count, device_.threads_per_sm), 1, 1}
              : workload_.grid(shape, 0);
}

void FolderStudentKernel::upload(const HostProblem& problem, cudaStream_t stream) {
  const HostBuffer guard = guard_floats() > 0 ? guard_pattern() : HostBuffer();
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const FolderLayout::Place& p = layout_.buffers[i];
    if (!p.output) {
      buffers_[i].upload(problem.inputs.at(p.index), stream);
      continue;
    }
    buffers_[i].upload(output_floats(problem.output, p), stream);
    if (!guard.empty()) buffers_[i].upload_at(static_cast<std::size_t>(floats_for(p.bytes)), guard, stream);
  }
}

std::int64_t FolderStudentKernel::first_write_past_end(cudaStream_t stream) const {
  if (guard_floats() == 0) return -1;
  HostBuffer guard(static_cast<std::size_t>(guard_floats()));
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const FolderLayout::Place& p = layout_.buffers[i];
    if (!p.output) continue;
    buffers_[i].download_at(static_cast<std::size_t>(floats_for(p.bytes)), guard, stream);
    if (const std::int64_t changed = first_changed_guard(guard); changed >= 0) return changed;
  }
  return -1;
}

DeviceBuffers FolderStudentKernel::device_buffers() {
  DeviceBuffers buffers;
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    float* at = reinterpret_cast<float*>(buffers_[i].get());
    if (!layout_.buffers[i].output) buffers.inputs.push_back(at);
    else if (!buffers.output) buffers.output = at;
  }
  return buffers;
}

void FolderStudentKernel::run(cudaStream_t stream) {
  const FolderLaunch& l = workload_.spec().kernels.front().launch;
  driver::launch_kernel(kernel_, {.grid_x = grid_[0], .grid_y = grid_[1], .grid_z = grid_[2], .block_x = l.block[0],
                                  .block_y = l.block[1], .block_z = l.block[2], .shared_bytes = shared_bytes_},
                        args_, stream);
}

void FolderStudentKernel::download(std::span<float> out, cudaStream_t stream) {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const FolderLayout::Place& p = layout_.buffers[i];
    if (p.output)
      buffers_[i].download(out.subspan(static_cast<std::size_t>(p.offset / 4), static_cast<std::size_t>(floats_for(p.bytes))),
                           stream);
  }
}

}  // namespace lb::lab
