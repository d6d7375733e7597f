// matmul with cuBLAS: one cublasSgemm. cuBLAS is column-major (Fortran BLAS): it reads a matrix
// with leading dimension ld as element (i, j) at i + j*ld. Our matrices are row-major, and a
// row-major R x C matrix read as column-major is its transpose, C x R. So, with no copy and no
// transpose kernel: row-major C = A*B is column-major C^T = B^T * A^T, which is what cuBLAS
// computes when asked for an N x M result (m' = N, n' = M, k' = K) from B first (N x K column-major,
// ld N) then A (K x M column-major, ld K), into C (N x M column-major, ld N): the operands swapped
// and CUBLAS_OP_N for both. beta = 0: C is only written (BLAS does not read C then, so the NaN
// poison cannot leak in). Plain fp32 (vendor_layer.cu says why CUBLAS_DEFAULT_MATH).
#include <limits>
#include <stdexcept>

#include "variants/vendor/vendor_layer.h"

namespace lb::vendor {
namespace {

int as_int(std::int64_t v, const char* what) {
  if (v > std::numeric_limits<int>::max())
    throw std::invalid_argument(std::string("cublasSgemm takes int dimensions: ") + what + " = " + std::to_string(v));
  return static_cast<int>(v);
}

class Matmul final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    m_ = as_int(s.m, "M");
    n_ = as_int(s.n, "N");
    k_ = as_int(s.k, "K");
    a_ = DeviceBuffer<float>(s.m * s.k);
    b_ = DeviceBuffer<float>(s.k * s.n);
    c_ = DeviceBuffer<float>(s.m * s.n);
    session_ = &setup.session_as<Session>();
    session_->on(setup.stream);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    a_.upload(p.inputs[0], stream);
    b_.upload(p.inputs[1], stream);
    c_.upload(p.output, stream);
  }
  void run(cudaStream_t stream) override {
    const float one = 1.0f, zero = 0.0f;
    // Column-major C^T (N x M) = B^T (N x K) * A^T (K x M): row-major C = A * B.
    LB_CUBLAS_CHECK(cublasSgemm(session_->on(stream), CUBLAS_OP_N, CUBLAS_OP_N, n_, m_, k_, &one, b_.get(), n_,
                                a_.get(), k_, &zero, c_.get(), n_));
  }
  void download(std::span<float> out, cudaStream_t stream) override { c_.download(out, stream); }

 private:
  int m_ = 0, n_ = 0, k_ = 0;
  Session* session_ = nullptr;
  DeviceBuffer<float> a_, b_, c_;
};

}  // namespace
LB_REGISTER_VARIANT("vendor", "matmul", Matmul);
}  // namespace lb::vendor
