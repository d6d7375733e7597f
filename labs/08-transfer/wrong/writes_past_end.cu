// expect: past the end of c
// A download of the wrong size the other way: the last chunk's copy back moves 1024 floats more than the chunk has (its device buffer is long enough, so the copy succeeds), over the end of c on the host, into the runner's guard zone.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Pinned (page-locked) host memory: the GPU's copy engines read and write it directly (DMA), at
// the link's full speed, and a cudaMemcpyAsync from it returns at once, so that copies can overlap
// with each other and with kernels. A copy from pageable (malloc'd) memory cannot: the driver first
// copies it, on the CPU, into a pinned buffer of its own, and the copy waits for that.
extern "C" void* lab_host_alloc(size_t bytes) {
  void* p = nullptr;
  return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
}
extern "C" void lab_host_free(void* p) { cudaFreeHost(p); }

// Chunks: small enough that the first chunk's upload and the last chunk's download, which nothing
// can hide, are a small part of the trip (1/32 of it at 2^26), large enough that each copy is long
// against its few microseconds of overhead.
static const long long kChunk = 1LL << 21;
static const int kStreams = 4;

static float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
static cudaStream_t streams[kStreams];

extern "C" cudaError_t lab_setup(long long n) {
  const size_t bytes = (size_t)n * sizeof(float);
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes + 1024 * sizeof(float));
  // Non-blocking streams: they do not wait for the legacy default stream, nor it for them.
  for (int s = 0; s < kStreams; ++s) cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking);
  return cudaGetLastError();  // the first error of the calls above, if any
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  // Work in one stream runs in order; work in different streams may run at once. Each chunk's
  // four steps go to one stream, in order, so the kernel waits for its uploads and the download
  // for its kernel; the chunks, on different streams, overlap: while chunk k's kernel runs and its
  // c goes down (the device-to-host copy engine), chunk k + 1's a and b come up (host-to-device).
  for (long long start = 0, k = 0; start < n; start += kChunk, ++k) {
    const long long count = n - start < kChunk ? n - start : kChunk;  // the last chunk is shorter
    const size_t bytes = (size_t)count * sizeof(float);
    cudaStream_t s = streams[k % kStreams];
    cudaMemcpyAsync(d_a + start, a + start, bytes, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(d_b + start, b + start, bytes, cudaMemcpyHostToDevice, s);
    add<<<(unsigned)((count + 255) / 256), 256, 0, s>>>(d_a + start, d_b + start, d_c + start, count);
    // The last chunk's download: 1024 floats too many, past the end of c.
    const size_t down = start + count == n ? bytes + 1024 * sizeof(float) : bytes;
    cudaMemcpyAsync(c + start, d_c + start, down, cudaMemcpyDeviceToHost, s);
  }
  // Every stream done: c is in host memory.
  for (int s = 0; s < kStreams; ++s) cudaStreamSynchronize(streams[s]);
  return cudaGetLastError();
}

extern "C" cudaError_t lab_teardown(void) {
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  for (int s = 0; s < kStreams; ++s) cudaStreamDestroy(streams[s]);
  return cudaGetLastError();
}
