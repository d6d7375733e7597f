// Lab 8: the whole trip. c = a + b, where a, b and c live in host memory: upload a and b, add them
// on the GPU, download c. The time graded is the whole trip, copies included (README.md).
//
// You write host code and device code, with the CUDA runtime API only (README.md, "What your file
// may contain"). The runner calls the five functions below, in this order, for each size:
//   lab_host_alloc (a, b, c)  ->  lab_setup(n)  ->  lab_trip(a, b, c, n) ...  ->  lab_teardown()
//   ->  lab_host_free (a, b, c)
// Replace every //@@ line with code. As given, lab_trip does nothing, and the check fails.
#include <cuda_runtime.h>

// c[i] = a[i] + b[i] for i < n: lab 1's kernel, given.
__global__ void add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// The host buffers the runner fills (a, b) and reads (c). malloc gives pageable memory: the copies
// work, but the driver has to stage each through a pinned buffer of its own.
//@@ Once your trip works, allocate page-locked (pinned) memory instead: cudaMallocHost, cudaFreeHost.
extern "C" void* lab_host_alloc(size_t bytes) { return malloc(bytes); }
extern "C" void lab_host_free(void* p) { free(p); }

//@@ What lab_trip needs, kept between the calls: device buffers, streams.

// Once per size, not timed: allocate what lab_trip needs.
extern "C" cudaError_t lab_setup(long long n) {
  //@@ cudaMalloc the device buffers (n floats each); create the streams (cudaStreamCreate).
  return cudaGetLastError();
}

// Timed: upload a and b, add, download c. When it returns, the runner waits for the GPU, then
// reads c.
extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  //@@ The simplest trip: cudaMemcpy a and b to the device, launch add, cudaMemcpy c back.
  //@@ Then the fast one: cut the vector into chunks, and give each chunk its own stream (round
  //@@ robin over a few): cudaMemcpyAsync its a and b up, launch add on it, cudaMemcpyAsync its c
  //@@ down, all on that stream. Mind the last chunk, which is shorter.
  return cudaGetLastError();
}

// Once per size, after the trips: free what lab_setup allocated.
extern "C" cudaError_t lab_teardown(void) {
  //@@ cudaFree the device buffers; cudaStreamDestroy the streams.
  return cudaGetLastError();
}
