// The driver layer's variant of a workload folder (`run --workload-dir`): the folder's kernels.cu
// compiled by NVRTC under its own path, one device buffer per workload.json buffer (exactly its
// bytes), and for each kernel of the sequence, in order, its arguments bound in workload.json's
// order (FolderArguments: buffers as device pointers, scalars as their typed values, m, n, k as
// long long) and one cuLaunchKernel with its block and grid on the harness's stream. The bytes are the harness's (workloads/folder/folder_workload.h): this file
// moves them and never reads their types.
#include <array>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {

class FolderVariant final : public Variant {
 public:
  explicit FolderVariant(const FolderWorkload& workload) : workload_(workload) {}

  void allocate(const Shape& shape, const Setup& setup) override {
    const FolderSpec& spec = workload_.spec();
    Session& session = setup.session_as<Session>();
    layout_ = workload_.layout(shape);
    std::vector<std::uint64_t> addresses;
    for (const FolderLayout::Place& p : layout_.buffers) {
      buffers_.emplace_back(static_cast<std::size_t>(floats_for(p.bytes)));
      addresses.push_back(buffers_.back().get());
    }
    for (std::size_t i = 0; i < spec.kernels.size(); ++i) {
      const FolderKernel& k = spec.kernels[i];
      const CUfunction function = session.folder_kernel(workload_.name(), spec, k.name, *setup.costs);
      allow_rung_smem(function, k.launch.shared_bytes);  // over 48 KiB needs the limit raised
      const auto grid = k.launch.grid_stride ? std::array<unsigned, 3>{grid_stride_blocks(k.launch.block, session.sm_count(),
                                                                                          session.threads_per_sm()),
                                                                       1, 1}
                                             : workload_.grid(shape, i);
      launches_.emplace_back(function, grid, k, shape, addresses);
    }
  }

  void upload(const HostProblem& problem, cudaStream_t stream) override {
    for (std::size_t i = 0; i < buffers_.size(); ++i) buffers_[i].upload(layout_.host(problem, i), stream);
  }

  void run(cudaStream_t stream) override {
    for (Launch& launch : launches_) {
      const FolderLaunch& l = launch.kernel->launch;
      LB_CU_CHECK(cu().cuLaunchKernel(launch.function, launch.grid[0], launch.grid[1], launch.grid[2], l.block[0],
                                      l.block[1], l.block[2], l.shared_bytes, stream, launch.args.args(),
                                      /*extra*/ nullptr));
    }
  }

  void download(std::span<float> out, cudaStream_t stream) override {
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (layout_.buffers[i].output) buffers_[i].download(layout_.output(out, i), stream);
  }

 private:
  // One kernel of the sequence, ready to launch.
  struct Launch {
    Launch(CUfunction f, std::array<unsigned, 3> g, const FolderKernel& k, const Shape& s, std::vector<std::uint64_t> addresses)
        : function(f), grid(g), kernel(&k), args(k, s, std::move(addresses)) {}
    CUfunction function;
    std::array<unsigned, 3> grid;
    const FolderKernel* kernel;
    FolderArguments args;  // the parameters' values, which cuLaunchKernel copies
  };

  const FolderWorkload& workload_;
  FolderLayout layout_;
  std::vector<DeviceMemory> buffers_;
  std::deque<Launch> launches_;  // in order; a deque: FolderArguments neither copies nor moves
};

}  // namespace

std::unique_ptr<Variant> folder_variant(const FolderWorkload& workload) {
  return std::make_unique<FolderVariant>(workload);
}

}  // namespace lb::driver
