// reduce with Thrust: one call, thrust::reduce, which returns the sum to the host. On the CUDA
// backend that one call hides what the runtime layer spells out and more: it asks CUB how much
// temporary storage the reduction needs, allocates it, launches CUB's kernels, copies the 4-byte
// result device -> host and waits for it. Returning a value, it cannot help waiting (no policy
// makes it asynchronous), so run_waits(): each run() includes one host round trip.
//
// The temporary storage: a plain call cudaMallocs and cudaFrees it every time (and cudaFree waits
// for the whole device). Passing a memory resource through the execution policy,
// thrust::cuda::par(&pool).on(stream) (waits() in thrust_layer.h), makes the call take it from a
// pool of Thrust's own (thrust::mr) that keeps the block for the next call: the first run()
// allocates, later ones reuse.
#include <thrust/functional.h>
#include <thrust/mr/device_memory_resource.h>
#include <thrust/mr/disjoint_pool.h>
#include <thrust/mr/new.h>
#include <thrust/reduce.h>

#include "variants/thrust/thrust_layer.h"

namespace lb::LB_THRUST_NS {
namespace {
// Disjoint: the blocks are device memory, so the pool keeps its bookkeeping in host memory.
using TemporaryPool =
    thrust::mr::disjoint_unsynchronized_pool_resource<thrust::device_memory_resource, thrust::mr::new_delete_resource>;

class Reduce final : public Variant {
 public:
  void allocate(const Shape& s, const Setup& setup) override { x_ = make_vector(s.n, setup.stream); }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    to_device(p.inputs[0], x_, stream);
    sum_ = p.output[0];  // the NaN poison: download() reads a value only this run() can replace
  }
  void run(cudaStream_t stream) override { sum_ = thrust::reduce(waits(stream, pool_), x_.begin(), x_.end(), 0.0f, thrust::plus<float>()); }
  // The result is already on the host; there is nothing left to copy or wait for.
  void download(std::span<float> out, cudaStream_t) override { out[0] = sum_; }
  bool run_waits() const override { return true; }

 private:
  Vector x_;
  TemporaryPool pool_;
  float sum_ = 0.0f;
};
}  // namespace
LB_REGISTER_VARIANT(LB_THRUST_LAYER, "reduce", Reduce);
}  // namespace lb::LB_THRUST_NS
