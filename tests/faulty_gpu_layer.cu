// A GPU layer whose vector_add kernel faults on purpose, linked only into layerbench_faulty: it
// writes far past its buffer, an illegal address, which is a sticky error that kills the CUDA
// context for the rest of the process. tests/test_run_safety.cpp checks that this case fails with
// CUDA's text, the later GPU cases are skipped saying why, the CPU cases still run, the JSON is
// written and the exit status is 1.
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/gpu.h"
#include "variants/variant.h"
#include <nlohmann/json.hpp>

namespace lb::faulty_gpu {
namespace {

__global__ void write_out_of_bounds(float* out) {
  // 2^40 floats past the buffer: far outside any allocation, so the write faults.
  if (threadIdx.x == 0) out[1ULL << 40] = 1.0f;
}

class VectorAddFaults final : public Variant {
 public:
  void allocate(const Shape& s, const Setup&) override { c_ = DeviceBuffer<float>(s.n); }
  void upload(const HostProblem& p, cudaStream_t stream) override { c_.upload(p.output, stream); }
  void run(cudaStream_t stream) override {
    write_out_of_bounds<<<1, 32, 0, stream>>>(c_.get());
    LB_CHECK_LAUNCH();
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  DeviceBuffer<float> c_;
};

}  // namespace

LB_REGISTER_LAYER(Layer{
    .name = "faulty-gpu",
    .summary = "a kernel that writes to an illegal address (tests only)",
    .on_gpu = true,
    .rank = 101,
    .unavailable_reason = gpu_unavailable_reason,
    .describe = [] { return nlohmann::json::object(); },
});
LB_REGISTER_VARIANT("faulty-gpu", "vector_add", VectorAddFaults);

}  // namespace lb::faulty_gpu
