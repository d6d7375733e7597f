// The cold-mode L2 flush: run before each GPU sample, on the harness's stream, outside the timed
// region.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "common/device_buffer.h"

namespace lb {

// Bytes the flush reads: twice the L2, so that no line of the previous sample survives whatever
// the replacement policy, and at least 1 MiB.
std::size_t l2_flush_bytes(std::size_t l2_bytes);

// Reads a buffer of l2_flush_bytes(), leaving the L2 full of clean lines that belong to nobody:
// the next sample starts cold and owes no write-backs. (A memset, as nvbench uses, would leave
// dirty lines that the measured kernel pays to write back.)
class L2Flusher {
 public:
  L2Flusher(std::size_t l2_bytes, cudaStream_t stream);
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return buffer_.size() * sizeof(float4); }

 private:
  DeviceBuffer<float4> buffer_;
  DeviceBuffer<float> sink_;
  int blocks_ = 0;
};

}  // namespace lb
