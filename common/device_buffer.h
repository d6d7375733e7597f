// Device memory that frees itself, and its copies to and from the host on a given stream.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>

#include "common/cuda_check.h"

namespace lb {

// cudaMalloc'd memory for `count` elements of T, cudaFree'd by the destructor. Move-only, like
// the memory it owns. A failed allocation throws DeviceOutOfMemory.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) LB_CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(T)));
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
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

  // Copies in the order of `stream` and waits for them: upload() returns once the data is on the
  // device; download() first waits for the work enqueued on `stream` before it. (A plain
  // cudaMemcpy would go through the legacy default stream, which does not wait for the
  // harness's non-blocking stream.)
  void upload(std::span<const T> host, cudaStream_t stream) {
    LB_CUDA_CHECK(cudaMemcpyAsync(ptr_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream));
    LB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void download(std::span<T> host, cudaStream_t stream) const {
    LB_CUDA_CHECK(cudaMemcpyAsync(host.data(), ptr_, host.size_bytes(), cudaMemcpyDeviceToHost, stream));
    LB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace lb
