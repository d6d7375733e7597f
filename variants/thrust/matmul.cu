// matmul with Thrust alone: a thrust::transform over the output indices 0 .. m*n-1 (a
// counting_iterator, which stores no memory) whose functor computes one element of C as an inner
// product of a row of A and a column of B. On the GPU, neighbouring threads get neighbouring
// columns j: their reads of B are coalesced and the row of A is the same for all of them. But every
// thread fetches its 2k operands from global memory (caches permitting) and nothing is shared: the
// runtime layer's tiled kernel stages tiles of A and B in shared memory and reuses each loaded
// value across a whole tile. Thrust has no algorithm for that; see docs/layers/thrust.md.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include "variants/thrust/thrust_layer.h"

namespace lb::LB_THRUST_NS {
namespace {

// Raw pointers, not device_vectors: a functor runs on the device and holds device addresses.
struct InnerProduct {
  const float* a;  // m x k, row-major
  const float* b;  // k x n, row-major
  std::int64_t n, k;
  LB_HOST_DEVICE float operator()(std::int64_t index) const {
    const std::int64_t i = index / n, j = index % n;
    const float* row = a + i * k;
    float sum = 0.0f;
    for (std::int64_t l = 0; l < k; ++l) sum += row[l] * b[l * n + j];
    return sum;
  }
};

class Matmul final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    shape_ = s;
    a_ = make_vector(s.m * s.k, setup.stream);
    b_ = make_vector(s.k * s.n, setup.stream);
    c_ = make_vector(s.m * s.n, setup.stream);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    to_device(p.inputs[0], a_, stream);
    to_device(p.inputs[1], b_, stream);
    to_device(p.output, c_, stream);  // the NaN poison
  }
  void run(cudaStream_t stream) override {
    const thrust::counting_iterator<std::int64_t> first(0);
    const InnerProduct op{thrust::raw_pointer_cast(a_.data()), thrust::raw_pointer_cast(b_.data()), shape_.n,
                          shape_.k};
    thrust::transform(no_wait(stream), first, first + shape_.m * shape_.n, c_.begin(), op);
  }
  void download(std::span<float> out, cudaStream_t stream) override { to_host(c_, out, stream); }

 private:
  Shape shape_;
  Vector a_, b_, c_;
};
}  // namespace
LB_REGISTER_VARIANT(LB_THRUST_LAYER, "matmul", Matmul);
}  // namespace lb::LB_THRUST_NS
