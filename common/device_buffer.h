// Device memory that frees itself, and its copies to and from the host on a given stream.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>

#include "common/cuda_check.h"

namespace lb {

// cudaMemcpyAsync on `stream`, then waits for the stream: the copy (and, for a download, the work
// enqueued before it) is done when this returns, as with cudaMemcpy. A plain cudaMemcpy would go
// through the legacy default stream, which does not wait for the harness's non-blocking stream.
inline void copy_and_wait(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  LB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  LB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

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

  // Copies in the order of `stream`, waited for (copy_and_wait).
  void upload(std::span<const T> host, cudaStream_t stream) {
    copy_and_wait(ptr_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream);
  }
  void download(std::span<T> host, cudaStream_t stream) const {
    copy_and_wait(host.data(), ptr_, host.size_bytes(), cudaMemcpyDeviceToHost, stream);
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace lb
