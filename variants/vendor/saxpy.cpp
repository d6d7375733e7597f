// saxpy with cuBLAS: y = alpha*x + y in place, one cublasSaxpy (its 64-bit-size form,
// cublasSaxpy_64, so that n past 2^31 - 1 is not refused; the same routine otherwise). alpha is a
// host float read when the call is made (CUBLAS_POINTER_MODE_HOST, set in the session); x and y
// are device memory with stride 1. upload() writes y's starting values, as for the runtime layer.
#include "variants/vendor/vendor_layer.h"

namespace lb::vendor {
namespace {

class Saxpy final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    n_ = s.n;
    x_ = DeviceBuffer<float>(n_);
    y_ = DeviceBuffer<float>(n_);
    session_ = &setup.session_as<Session>();
    session_->on(setup.stream);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    alpha_ = p.alpha;
    x_.upload(p.inputs[0], stream);
    y_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    LB_CUBLAS_CHECK(cublasSaxpy_64(session_->on(stream), n_, &alpha_, x_.get(), 1, y_.get(), 1));
  }
  void download(std::span<float> out, cudaStream_t stream) override { y_.download(out, stream); }

 private:
  std::int64_t n_ = 0;
  float alpha_ = 0.0f;
  Session* session_ = nullptr;
  DeviceBuffer<float> x_, y_;
};

}  // namespace
LB_REGISTER_VARIANT("vendor", "saxpy", Saxpy);
}  // namespace lb::vendor
