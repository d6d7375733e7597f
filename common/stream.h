// CUDA streams and events as owning, move-only objects.
#pragma once
#include <cuda_runtime.h>

#include <utility>

#include "common/cuda_check.h"

namespace lb {

// A stream of the harness's own. Non-blocking: it does not wait for, nor hold up, the legacy
// default stream (stream 0), so device work that reached stream 0 by accident is not silently
// ordered with the measured work; tests/test_stream_gate.cpp holds stream 0 to catch it.
class Stream {
 public:
  Stream() { LB_CUDA_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking)); }
  Stream(Stream&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  ~Stream() {
    if (handle_) cudaStreamDestroy(handle_);
  }
  cudaStream_t get() const { return handle_; }
  void synchronize() const { LB_CUDA_CHECK(cudaStreamSynchronize(handle_)); }

 private:
  cudaStream_t handle_ = nullptr;
};

// A timing event. elapsed_ms(start, stop) waits for `stop` to complete.
class Event {
 public:
  Event() { LB_CUDA_CHECK(cudaEventCreate(&handle_)); }
  Event(Event&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;
  ~Event() {
    if (handle_) cudaEventDestroy(handle_);
  }
  cudaEvent_t get() const { return handle_; }
  void record(cudaStream_t stream) { LB_CUDA_CHECK(cudaEventRecord(handle_, stream)); }
  static double elapsed_ms(const Event& start, const Event& stop) {
    LB_CUDA_CHECK(cudaEventSynchronize(stop.handle_));
    float ms = 0.0f;
    LB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.handle_, stop.handle_));
    return ms;
  }

 private:
  cudaEvent_t handle_ = nullptr;
};

}  // namespace lb
