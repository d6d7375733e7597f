// expect-check: pass
// expect-grade: graded 60 10 40
// expect-feedback: too few chunks
// Two chunks: the vector in two halves on two streams, the second half's upload queued after the first's (an event), as one copy engine would take them. The second half's upload overlaps the first half's download, but the first half's upload and the second half's download are not hidden: about a quarter of the upload's time more than a trip of many chunks.
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
static cudaStream_t streams[2];
static cudaEvent_t uploaded;

extern "C" cudaError_t lab_setup(long long n) {
  const size_t bytes = (size_t)n * sizeof(float);
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  for (int s = 0; s < 2; ++s) cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming);
  return cudaGetLastError();
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  const long long half = (n + 1) / 2;
  for (long long start = 0, k = 0; start < n; start += half, ++k) {
    const long long count = n - start < half ? n - start : half;
    const size_t bytes = (size_t)count * sizeof(float);
    cudaStream_t s = streams[k];
    if (k == 1) cudaStreamWaitEvent(s, uploaded, 0);  // the second half's upload after the first's
    cudaMemcpyAsync(d_a + start, a + start, bytes, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(d_b + start, b + start, bytes, cudaMemcpyHostToDevice, s);
    if (k == 0) cudaEventRecord(uploaded, s);
    add<<<(unsigned)((count + 255) / 256), 256, 0, s>>>(d_a + start, d_b + start, d_c + start, count);
    cudaMemcpyAsync(c + start, d_c + start, bytes, cudaMemcpyDeviceToHost, s);
  }
  for (int s = 0; s < 2; ++s) cudaStreamSynchronize(streams[s]);
  return cudaGetLastError();
}

extern "C" cudaError_t lab_teardown(void) {
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  for (int s = 0; s < 2; ++s) cudaStreamDestroy(streams[s]);
  cudaEventDestroy(uploaded);
  return cudaGetLastError();
}
