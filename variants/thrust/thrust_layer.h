// The Thrust layer: the four workloads written once with Thrust's algorithms and compiled twice.
//   thrust      nvcc, THRUST_DEVICE_SYSTEM_CUDA (the default): device_vector is cudaMalloc'd GPU
//               memory and the algorithms run CUB kernels on the GPU.
//   thrust-omp  g++ -fopenmp, THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP: device_vector is host
//               memory and the same algorithms run as OpenMP loops on every core.
// Everything both builds define lives in lb::LB_THRUST_NS (thrust_cuda or thrust_omp), so the two
// compilations of one file link into one binary without clashing (the namespace is deliberately
// not lb::thrust, which would hide ::thrust). Thrust's own symbols do not clash either: the CUDA
// build puts them in an ABI namespace, e.g. thrust::THRUST_300001_SM_900_NS (set up in
// thrust/detail/config/namespace.h), that the OpenMP build does not use.
#pragma once
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/version.h>

#include <cstdint>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "common/cuda_check.h"
#include "common/device_buffer.h"  // copy_and_wait
#include "variants/variant.h"

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#define LB_THRUST_LAYER "thrust"
#define LB_THRUST_NS thrust_cuda
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
#define LB_THRUST_LAYER "thrust-omp"
#define LB_THRUST_NS thrust_omp
#else
#error "the thrust layer is built for the CUDA or the OMP device system only"
#endif

// Functors passed to Thrust run on the device in the CUDA build, so nvcc must compile them for
// both sides; g++ has no such keywords.
#ifdef __CUDACC__
#define LB_HOST_DEVICE __host__ __device__
#else
#define LB_HOST_DEVICE
#endif

namespace lb::LB_THRUST_NS {

// The runtime layer's DeviceBuffer, Thrust's way: an owning, typed vector in the device system's
// memory. Unlike cudaMalloc, the constructor also fills it (with 0.0f: one kernel, waited for, or
// one parallel loop); that happens in allocate(), which is not timed.
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
// The fill kernel runs where the vector's allocator says: Thrust asks an allocator for its
// "system" (a.system(), when it has one) and launches there. The default allocator has none, so
// the fill would go to the legacy default stream; this one carries the harness's stream.
template <class T>
struct OnStream : thrust::device_allocator<T> {
  using system_type = decltype(thrust::cuda::par.on(cudaStream_t{}));
  template <class U>
  struct rebind {
    using other = OnStream<U>;
  };
  explicit OnStream(cudaStream_t stream = nullptr) : policy(thrust::cuda::par.on(stream)) {}
  template <class U>
  OnStream(const OnStream<U>& other) : policy(other.policy) {}
  system_type& system() { return policy; }
  system_type policy;
};
using Vector = thrust::device_vector<float, OnStream<float>>;
#else
using Vector = thrust::device_vector<float>;
#endif

// Thrust reports a failed allocation as thrust::system::detail::bad_alloc, a std::bad_alloc. For
// the CUDA build that is device memory, so it becomes DeviceOutOfMemory and the harness skips the
// case; for the OpenMP build it is host memory, which the harness already skips as std::bad_alloc.
inline Vector make_vector(std::int64_t n, [[maybe_unused]] cudaStream_t stream) {
  try {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    return Vector(static_cast<std::size_t>(n), 0.0f, OnStream<float>(stream));
#else
    return Vector(static_cast<std::size_t>(n));
#endif
  } catch (const std::bad_alloc& e) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    throw DeviceOutOfMemory("thrust::device_vector<float>(" + std::to_string(n) + "): " + e.what(),
                            cudaErrorMemoryAllocation);
#else
    throw;
#endif
  }
}

// Thrust takes the stream through its execution policy: policy.on(stream). Two policies:
//   no_wait(stream)  for calls whose result stays in device memory (transform). Thrust's default
//                    policy ends every algorithm with a stream synchronize; par_nosync leaves it
//                    out, so the call enqueues its kernel and returns, as a <<<>>> launch does, and
//                    the harness's stop event does the waiting.
//   waits(stream)    for calls that return a value to the host (reduce) or that we mean to wait
//                    for: thrust::cuda::par, which synchronizes the stream before returning.
// On the OpenMP backend there is no stream: the loops have run when the call returns.
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
inline auto no_wait(cudaStream_t stream) { return thrust::cuda::par_nosync.on(stream); }
inline auto waits(cudaStream_t stream) { return thrust::cuda::par.on(stream); }
// waits(), with temporary storage taken from `pool` instead of cudaMalloc'd for each call.
template <class Pool>
auto waits(cudaStream_t stream, Pool& pool) {
  return thrust::cuda::par(&pool).on(stream);
}
#else
inline auto no_wait(cudaStream_t) { return thrust::device; }
inline auto waits(cudaStream_t) { return thrust::device; }
template <class Pool>
auto waits(cudaStream_t, Pool& pool) {
  return thrust::device(&pool);
}
#endif

// Host <-> device copies. Thrust's own (thrust::copy between a host range and a device_vector)
// always run on Thrust's default stream, which does not wait for the harness's; the CUDA build
// therefore copies with cudaMemcpyAsync on the harness's stream and waits for it, and the OpenMP
// build, where a device_vector is host memory, copies in place.
inline void to_device(std::span<const float> host, Vector& device, cudaStream_t stream) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  copy_and_wait(thrust::raw_pointer_cast(device.data()), host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream);
#else
  thrust::copy(host.begin(), host.end(), device.begin());
#endif
}
inline void to_host(const Vector& device, std::span<float> host, cudaStream_t stream) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  copy_and_wait(host.data(), thrust::raw_pointer_cast(device.data()), host.size_bytes(), cudaMemcpyDeviceToHost, stream);
#else
  thrust::copy(device.begin(), device.end(), host.data());
#endif
}

}  // namespace lb::LB_THRUST_NS
