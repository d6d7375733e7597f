// transpose with cuBLAS: one cublasSgeam, C = alpha op(A) + beta op(B), with alpha = 1, beta = 0
// (its 64-bit-size form, cublasSgeam_64, so that no dimension is refused; the same routine
// otherwise). Row-major A (M x N) read column-major is A^T (N x M, ld N), and row-major B (N x M)
// read column-major is an M x N matrix, ld M: so B = A^T row-major is column-major M x N = op(A^T)
// with op = CUBLAS_OP_T, asked for as m = M, n = N, lda = N, ldc = M.
// geam has no form without its second operand; it gets A again, in the same layout, so that
// whether or not cuBLAS reads it at beta = 0, 1 a + 0 a is a exactly (the output's NaN poison is
// never an operand).
#include "variants/vendor/vendor_layer.h"

namespace lb::vendor {
namespace {

class Transpose final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    m_ = s.m;
    n_ = s.n;
    a_ = DeviceBuffer<float>(s.m * s.n);
    b_ = DeviceBuffer<float>(s.n * s.m);
    session_ = &setup.session_as<Session>();
    session_->on(setup.stream);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    const float one = 1.0f, zero = 0.0f;
    // Column-major B^T (M x N) = (A^T)^T, A^T being row-major A read column-major (N x M, ld N).
    LB_CUBLAS_CHECK(cublasSgeam_64(session_->on(stream), CUBLAS_OP_T, CUBLAS_OP_T, m_, n_, &one, a_.get(), n_, &zero,
                                   a_.get(), n_, b_.get(), m_));
  }
  void download(std::span<float> out, cudaStream_t stream) override { b_.download(out, stream); }

 private:
  std::int64_t m_ = 0, n_ = 0;
  Session* session_ = nullptr;
  DeviceBuffer<float> a_, b_;
};

}  // namespace
LB_REGISTER_VARIANT("vendor", "transpose", Transpose);
}  // namespace lb::vendor
