// matmul through the driver API: the grid (tiles, and splits of K along z) is three numbers of
// cuLaunchKernel's six. A ladder rung
// (Setup::rung) is its own file compiled by NVRTC, launched with the rung's grid (splits of K
// included), block and shared memory: the same text and shape as the runtime layer's rung.
#include <optional>

#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
class Matmul final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    m_ = int(s.m), n_ = int(s.n), k_ = int(s.k);
    if (setup.rung) {
      const MatmulLaunch& l = setup.rung->launch_as<MatmulLaunch>();
      const RungGrid grid = matmul_rung_grid(l, s.m, s.n, s.k, setup.session_as<Session>().sm_count());
      rung_ = RungLaunch{.grid_x = grid.x, .grid_y = grid.y, .grid_z = grid.z, .block_x = l.block_x,
                         .block_y = l.block_y, .smem_bytes = l.smem_bytes};
      kernel_ = load_rung_kernel(setup);
    } else {
      kernel_ = load_kernel(setup, "matmul", "matmul_tiled");
      grid_ = matmul_grid(s.m, s.n, s.k, setup.session_as<Session>().sm_count());
    }
    a_ = DeviceMemory(s.m * s.k);
    b_ = DeviceMemory(s.k * s.n);
    c_ = DeviceMemory(s.m * s.n);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.inputs[1], stream);
    c_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    CUdeviceptr a = a_.get(), b = b_.get(), c = c_.get();
    void* args[] = {&a, &b, &c, &m_, &n_, &k_};
    if (rung_) return launch(kernel_, *rung_, args, stream);
    launch(kernel_, grid_, LB_MM_THREADS, args, stream);
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  int m_ = 0, n_ = 0, k_ = 0;
  CUfunction kernel_ = nullptr;
  MatmulGrid grid_;
  std::optional<RungLaunch> rung_;
  DeviceMemory a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT("driver", "matmul", Matmul);
}  // namespace lb::driver
