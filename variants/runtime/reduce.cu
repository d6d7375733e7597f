// reduce through the CUDA runtime API: one launch of reduce_sum, whose last block adds the blocks'
// partial sums (workloads/reduce/kernels.cu); the partials are a buffer of one float a block. A ladder rung
// (Setup::rung) runs in as many passes as its launch shape needs (variants/ladder_launch.h).
#include "variants/runtime/runtime_layer.h"
#include "workloads/reduce/kernels.cu"

namespace lb::runtime {
namespace {
class Reduce final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    n_ = s.n;
    rung_ = setup.rung;
    x_ = DeviceBuffer<float>(n_);
    sum_ = DeviceBuffer<float>(1);
    if (rung_) {
      allow_rung_smem(rung_->runtime_kernel, rung_->smem_bytes());
      plan_ = reduce_rung_plan(rung_->launch_as<ReduceLaunch>(), n_, sm_count());
      for (int i = 0; i < 2; ++i) scratch_[i] = DeviceBuffer<float>(plan_.scratch_floats[i]);
      return;
    }
    blocks_ = grid_for(n_ / 4);
    partials_ = DeviceBuffer<float>(blocks_);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    x_.upload(p.inputs[0], stream);
    sum_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    if (rung_) return run_rung(stream);
    reduce_sum<<<blocks_, LB_BLOCK, 0, stream>>>(x_.get(), n_, partials_.get(), sum_.get());
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out, cudaStream_t stream) override { sum_.download(out, stream); }

 private:
  void run_rung(cudaStream_t stream) {
    const ReduceLaunch& l = rung_->launch_as<ReduceLaunch>();
    for (const ReducePass& pass : plan_.passes) {
      const float* in = pass.in < 0 ? x_.get() : scratch_[pass.in].get();
      float* out = pass.out < 0 ? sum_.get() : scratch_[pass.out].get();
      long long n = pass.n;
      void* args[] = {&in, &n, &out};
      launch_rung(rung_->runtime_kernel, dim3(pass.blocks), dim3(l.block), l.smem_bytes, args, stream);
    }
  }

  long long n_ = 0;
  unsigned blocks_ = 0;
  const Rung* rung_ = nullptr;
  ReducePlan plan_;
  DeviceBuffer<float> x_, partials_, sum_, scratch_[2];
};
}  // namespace
LB_REGISTER_VARIANT("runtime", "reduce", Reduce);
}  // namespace lb::runtime
