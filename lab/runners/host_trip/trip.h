// The five functions of the host trip (runner host-trip, labs/08-transfer/README.md), as
// the runner calls them: the student's, loaded from their compiled file (lab/runners/host_trip/trip_build.h), or
// ours (lab/runners/host_trip/trip_ours.h), which the student's is timed against.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace lb::lab {

class Trip {
 public:
  virtual ~Trip() = default;
  // The host buffers the runner fills (a, b) and reads (c); host_free gives each back.
  virtual void* host_alloc(std::size_t bytes) = 0;
  virtual void host_free(void* p) = 0;
  // Once per size, not timed: device buffers, streams, events.
  virtual cudaError_t setup(long long n) = 0;
  // Timed: c = a + b, from host memory to host memory.
  virtual cudaError_t trip(const float* a, const float* b, float* c, long long n) = 0;
  virtual cudaError_t teardown() = 0;
};

}  // namespace lb::lab
