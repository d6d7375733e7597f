// vector_add through the driver API. Against the runtime layer, this file must:
//  - get the kernel itself: load_kernel compiles workloads/vector_add/kernels.cu with NVRTC for
//    this GPU, loads the module and looks the function up by its extern "C" name;
//  - pack the arguments: an array of pointers to each argument, in the kernel's parameter order;
//  - name the stream in each call, as CUstream (the harness's cudaStream_t is the same handle).
// Plain C++: no nvcc, no <<<>>>.
#include "variants/driver/driver_layer.h"

namespace lb::driver {
namespace {
class VectorAdd final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    n_ = s.n;
    kernel_ = load_kernel(setup, "vector_add", "vector_add");
    a_ = DeviceMemory(n_);
    b_ = DeviceMemory(n_);
    c_ = DeviceMemory(n_);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.inputs[1], stream);
    c_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    CUdeviceptr a = a_.get(), b = b_.get(), c = c_.get();
    void* args[] = {&a, &b, &c, &n_};
    launch(kernel_, flat_blocks(n_), 1, LB_BLOCK, args, stream);
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  long long n_ = 0;  // the kernel's parameter is long long: the pointed-to type must match
  CUfunction kernel_ = nullptr;
  DeviceMemory a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT("driver", "vector_add", VectorAdd);
}  // namespace lb::driver
