// transpose with Thrust: a gather. thrust::gather(map, input, output) sets output[o] =
// input[map[o]]; the map here is no array but a transform_iterator over counting_iterator indices
// 0 .. m*n-1 whose functor turns output index o (B[o / m][o % m]) into its source in A,
// (o % m) * n + o / m. On the GPU, neighbouring threads take neighbouring o: their stores to B are
// coalesced, but their loads from A are n floats apart, each a 32-byte sector fetched for 4 bytes
// used (caches permitting: the sectors of one column serve the next columns if they are still in
// L2). The runtime layer's kernel turns a tile in shared memory so that both sides are coalesced;
// Thrust has no algorithm that stages data in shared memory (docs/layers/thrust.md).
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "variants/thrust/thrust_layer.h"

namespace lb::LB_THRUST_NS {
namespace {

// Where B's element o comes from in A (A is m x n, B n x m, both row-major).
struct SourceIndex {
  std::int64_t m, n;
  LB_HOST_DEVICE std::int64_t operator()(std::int64_t o) const { return (o % m) * n + o / m; }
};

class Transpose final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override {
    shape_ = s;
    a_ = make_vector(s.m * s.n, setup.stream);
    b_ = make_vector(s.n * s.m, setup.stream);
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    to_device(p.inputs[0], a_, stream);
    to_device(p.output, b_, stream);  // the NaN poison
  }
  void run(cudaStream_t stream) override {
    const auto map = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                     SourceIndex{shape_.m, shape_.n});
    thrust::gather(no_wait(stream), map, map + shape_.m * shape_.n, a_.begin(), b_.begin());
  }
  void download(std::span<float> out, cudaStream_t stream) override { to_host(b_, out, stream); }

 private:
  Shape shape_;
  Vector a_, b_;
};
}  // namespace
LB_REGISTER_VARIANT(LB_THRUST_LAYER, "transpose", Transpose);
}  // namespace lb::LB_THRUST_NS
