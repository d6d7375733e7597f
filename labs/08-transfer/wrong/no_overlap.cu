// expect-check: pass
// expect-grade: graded 60 0 10
// expect-feedback: no overlap
// No overlap: pinned buffers, but one synchronous copy of all of a, then of b, the kernel, and one copy of all of c back. Each step waits for the one before, so the trip takes as long as the uploads and the download one after another.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" void* lab_host_alloc(size_t bytes) {
  void* p = nullptr;
  return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
}
extern "C" void lab_host_free(void* p) { cudaFreeHost(p); }

static float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;

extern "C" cudaError_t lab_setup(long long n) {
  cudaMalloc(&d_a, (size_t)n * sizeof(float));
  cudaMalloc(&d_b, (size_t)n * sizeof(float));
  cudaMalloc(&d_c, (size_t)n * sizeof(float));
  return cudaGetLastError();
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  const size_t bytes = (size_t)n * sizeof(float);
  cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
  add<<<(unsigned)((n + 255) / 256), 256>>>(d_a, d_b, d_c, n);
  cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost);
  return cudaGetLastError();
}

extern "C" cudaError_t lab_teardown(void) {
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  return cudaGetLastError();
}
