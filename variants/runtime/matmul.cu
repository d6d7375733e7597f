// matmul through the CUDA runtime API: a grid of 128x128 output tiles, K split along z for a small C
// (matmul_grid); or a ladder rung's kernel with the rung's own grid, block and shared memory
// (Setup::rung; K split along z where the rung does that: matmul_rung_grid).
#include "variants/runtime/runtime_layer.h"
#include "workloads/matmul/kernels.cu"

namespace lb::runtime {
namespace {
class Matmul final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    shape_ = s;
    grid_ = matmul_grid(s.m, s.n, s.k, sm_count());
    rung_ = setup.rung;
    if (rung_) {
      allow_rung_smem(rung_->runtime_kernel, rung_->smem_bytes());
      rung_grid_ = matmul_rung_grid(rung_->launch_as<MatmulLaunch>(), s.m, s.n, s.k, sm_count());
    }
    a_ = DeviceBuffer<float>(s.m * s.k);
    b_ = DeviceBuffer<float>(s.k * s.n);
    c_ = DeviceBuffer<float>(s.m * s.n);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.inputs[1], stream);
    c_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    if (rung_) return run_rung(stream);
    matmul_tiled<<<dim3(grid_.x, grid_.y, grid_.z), LB_MM_THREADS, 0, stream>>>(a_.get(), b_.get(), c_.get(), int(shape_.m), int(shape_.n),
                                                     int(shape_.k));
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  void run_rung(cudaStream_t stream) {
    const MatmulLaunch& l = rung_->launch_as<MatmulLaunch>();
    const float *a = a_.get(), *b = b_.get();
    float* c = c_.get();
    int m = int(shape_.m), n = int(shape_.n), k = int(shape_.k);
    void* args[] = {&a, &b, &c, &m, &n, &k};
    launch_rung(rung_->runtime_kernel, dim3(rung_grid_.x, rung_grid_.y, rung_grid_.z), dim3(l.block_x, l.block_y),
                l.smem_bytes, args, stream);
  }

  Shape shape_;
  MatmulGrid grid_;
  const Rung* rung_ = nullptr;
  RungGrid rung_grid_;  // the rung's grid, splits of K along z included (matmul_rung_grid)
  DeviceBuffer<float> a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "matmul", Matmul);
}  // namespace lb::runtime
