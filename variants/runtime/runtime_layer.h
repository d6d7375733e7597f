// The CUDA runtime API layer: cudaMalloc, cudaMemcpy and <<<>>> launches on the default stream.
// This is the reference GPU layer; the others are lessons in what they add or hide.
#pragma once
#include <cuda_runtime.h>

#include <span>

#include "harness/cuda_error.h"
#include "variants/gpu_launch.h"
#include "variants/variant.h"

namespace lb::runtime {

// Device memory that frees itself. Move-only, like the memory it owns.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) LB_CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(T)));
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), count_(other.count_) {
    other.ptr_ = nullptr;
    other.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  // Synchronous copies: cudaMemcpy waits for earlier work on the default stream.
  void upload(std::span<const T> host) {
    LB_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  }
  void download(std::span<T> host) const {
    LB_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, host.size_bytes(), cudaMemcpyDeviceToHost));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Multiprocessors on the current device: grid-stride kernels launch a few blocks per SM.
int sm_count();

// One launch of workloads/launch/kernels.cu's launch_probe on `stream` (defined in launch.cu, the
// one translation unit that compiles that kernel), for layers built on the runtime API.
void enqueue_launch_probe(float* out, float value, cudaStream_t stream);

// Blocks of LB_BLOCK threads for a grid-stride loop over `items` on this device.
inline unsigned grid_for(long long items) { return grid_stride_blocks(items, sm_count()); }

}  // namespace lb::runtime

// Launch errors (bad configuration, missing kernel image) are reported here, not by the launch.
#define LB_CHECK_LAUNCH() LB_CUDA_CHECK(cudaGetLastError())
