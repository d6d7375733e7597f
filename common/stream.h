// CUDA streams and events as owning, move-only objects.
#pragma once
#include <cuda_runtime.h>

#include <utility>

#include "common/cuda_check.h"

namespace lb {

// A CUDA handle that `destroy` releases when its owner goes. Move-only, like what it owns.
template <class Handle, cudaError_t (*destroy)(Handle)>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  UniqueHandle& operator=(UniqueHandle&&) = delete;
  UniqueHandle(const UniqueHandle&) = delete;
  ~UniqueHandle() {
    if (handle_) destroy(handle_);
  }
  Handle get() const { return handle_; }

 protected:
  Handle handle_ = nullptr;
};

// A stream of the harness's own. Non-blocking: it does not wait for, nor hold up, the legacy
// default stream (stream 0), so device work that reached stream 0 by accident is not silently
// ordered with the measured work; tests/test_stream_gate.cpp holds stream 0 to catch it.
class Stream : public UniqueHandle<cudaStream_t, cudaStreamDestroy> {
 public:
  Stream() { LB_CUDA_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking)); }
  void synchronize() const { LB_CUDA_CHECK(cudaStreamSynchronize(handle_)); }
};

// A timing event. elapsed_ms(start, stop) waits for `stop` to complete.
class Event : public UniqueHandle<cudaEvent_t, cudaEventDestroy> {
 public:
  Event() { LB_CUDA_CHECK(cudaEventCreate(&handle_)); }
  void record(cudaStream_t stream) { LB_CUDA_CHECK(cudaEventRecord(handle_, stream)); }
  static double elapsed_ms(const Event& start, const Event& stop) {
    LB_CUDA_CHECK(cudaEventSynchronize(stop.handle_));
    float ms = 0.0f;
    LB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.handle_, stop.handle_));
    return ms;
  }
};

}  // namespace lb
