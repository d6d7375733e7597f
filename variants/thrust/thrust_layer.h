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

#include "harness/cuda_error.h"
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
// memory. Unlike cudaMalloc, the constructor also fills it (with 0.0f: one kernel, or one parallel
// loop); that happens in allocate(), which is not timed.
using Vector = thrust::device_vector<float>;

// Thrust reports a failed allocation as thrust::system::detail::bad_alloc, a std::bad_alloc. For
// the CUDA build that is device memory, so it becomes DeviceOutOfMemory and the harness skips the
// case; for the OpenMP build it is host memory, which the harness already skips as std::bad_alloc.
inline Vector make_vector(std::int64_t n) {
  try {
    return Vector(static_cast<std::size_t>(n));
  } catch (const std::bad_alloc& e) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    throw DeviceOutOfMemory("thrust::device_vector<float>(" + std::to_string(n) + "): " + e.what(),
                            cudaErrorMemoryAllocation);
#else
    throw;
#endif
  }
}

// The execution policy of the calls whose result stays in device memory (transform). Thrust's
// default policy (thrust::device) ends every algorithm with a cudaStreamSynchronize; on the CUDA
// backend thrust::cuda::par_nosync leaves it out, so the call enqueues its kernel on the legacy
// default stream and returns, as a <<<>>> launch does, and the harness's stop event does the
// waiting, as for the runtime layer. On the OpenMP backend the loops have run when the call
// returns, whatever the policy.
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
inline constexpr auto no_wait = thrust::cuda::par_nosync;
#else
inline constexpr auto no_wait = thrust::device;
#endif

// Host -> device and device -> host are thrust::copy between a host range and a device_vector;
// Thrust picks cudaMemcpy (CUDA build) or a plain copy (OpenMP build) from the iterators' systems.
inline void to_device(std::span<const float> host, Vector& device) {
  thrust::copy(host.begin(), host.end(), device.begin());
}
inline void to_host(const Vector& device, std::span<float> host) {
  thrust::copy(device.begin(), device.end(), host.data());
}

}  // namespace lb::LB_THRUST_NS
