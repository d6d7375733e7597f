// reduce through the driver API: one function, reduce_sum, whose last block adds the partial sums.
// A ladder rung (Setup::rung) is one function of its own file, launched in as many passes as its
// launch shape needs (variants/ladder_launch.h: the runtime layer's passes, the same arithmetic).
#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
class Reduce final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    n_ = s.n;
    x_ = DeviceMemory(n_);
    sum_ = DeviceMemory(1);
    if (setup.rung) {
      rung_ = setup.rung;
      kernel_ = load_rung_kernel(setup);
      plan_ = reduce_rung_plan(rung_->launch_as<ReduceLaunch>(), n_, setup.session_as<Session>().sm_count());
      for (int i = 0; i < 2; ++i) scratch_[i] = DeviceMemory(plan_.scratch_floats[i]);
      return;
    }
    kernel_ = load_kernel(setup, "reduce", "reduce_sum");
    blocks_ = static_cast<int>(grid_stride_blocks(n_ / 4, setup.session_as<Session>().sm_count()));
    partials_ = DeviceMemory(blocks_);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    x_.upload(p.inputs[0], stream);
    sum_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    if (rung_) return run_rung(stream);
    CUdeviceptr x = x_.get(), partials = partials_.get(), sum = sum_.get();
    void* args[] = {&x, &n_, &partials, &sum};
    launch(kernel_, blocks_, 1, LB_BLOCK, args, stream);
  }
  void download(std::span<float> out, cudaStream_t stream) override { sum_.download(out, stream); }

 private:
  void run_rung(cudaStream_t stream) {
    const ReduceLaunch& l = rung_->launch_as<ReduceLaunch>();
    for (const ReducePass& pass : plan_.passes) {
      CUdeviceptr in = pass.in < 0 ? x_.get() : scratch_[pass.in].get();
      CUdeviceptr out = pass.out < 0 ? sum_.get() : scratch_[pass.out].get();
      long long n = pass.n;
      void* args[] = {&in, &n, &out};
      launch(kernel_, RungLaunch{.grid_x = pass.blocks, .block_x = l.block, .smem_bytes = l.smem_bytes}, args, stream);
    }
  }

  long long n_ = 0;
  int blocks_ = 0;
  const Rung* rung_ = nullptr;
  ReducePlan plan_;
  CUfunction kernel_ = nullptr;
  DeviceMemory x_, partials_, sum_, scratch_[2];
};
}  // namespace
LB_REGISTER_VARIANT("driver", "reduce", Reduce);
}  // namespace lb::driver
