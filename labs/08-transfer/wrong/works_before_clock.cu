// expect: element 0 is
// Moves its work into the hand-over, before the clock starts: a kernel launched in lab_setup spins on the pinned c until the runner poisons it for the next trip (c[0] turns NaN), which once came right after the runner had put that trip's a and b in place and before the trip's clock started; it then copies a and b to the device, and lab_trip only adds what it staged and downloads c, so the timed trip would be the kernel and the download alone. It needs the runner's host pointers before lab_trip gives them: the buffers are the runner's shared memory, the same for every trip of the trip process, so it keeps the ones the last lab_trip was given, and stages from them in the next lab_setup (cudaHostGetDevicePointer: the runner registers the shared memory where lab_host_alloc gives pinned memory). Now the child writes a trip's a and b only after the trip's start mark, and the trip process waits for the GPU (the spinning kernel included) before it replies "ready": what the kernel staged is the last trip's a and b, always. It trusts what it staged, so from the second check size on its c is the last size's sum: the check fails there, with the element-by-element line, element 0 first (its first check size, where it knows no pointer yet, is an honest trip).
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static const long long kChunk = 1LL << 21;
static const int kStreams = 4;
static float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
static cudaStream_t streams[kStreams];

extern "C" void* lab_host_alloc(size_t bytes) {
  void* p = nullptr;
  return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
}
extern "C" void lab_host_free(void* p) { cudaFreeHost(p); }

static cudaError_t honest_setup(long long n) {
  const size_t bytes = (size_t)n * sizeof(float);
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  for (int s = 0; s < kStreams; ++s) cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking);
  return cudaGetLastError();
}

static cudaError_t honest_trip(const float* a, const float* b, float* c, long long n) {
  for (long long start = 0, k = 0; start < n; start += kChunk, ++k) {
    const long long count = n - start < kChunk ? n - start : kChunk;
    const size_t bytes = (size_t)count * sizeof(float);
    cudaStream_t s = streams[k % kStreams];
    cudaMemcpyAsync(d_a + start, a + start, bytes, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(d_b + start, b + start, bytes, cudaMemcpyHostToDevice, s);
    add<<<(unsigned)((count + 255) / 256), 256, 0, s>>>(d_a + start, d_b + start, d_c + start, count);
    cudaMemcpyAsync(c + start, d_c + start, bytes, cudaMemcpyDeviceToHost, s);
  }
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

// The runner's buffers as the last lab_trip got them (the same every trip: the trip process's shared memory).
static const float *last_a = nullptr, *last_b = nullptr;
static float* last_c = nullptr;
static float *staged_a = nullptr, *staged_b = nullptr;
static cudaStream_t watcher;

// One block: thread 0 waits for c[0] to turn NaN (the runner's poison before a trip), then every
// thread copies a and b, read through the mapped host memory, into the device's staging buffers.
__global__ void stage_when_poisoned(const float* a, const float* b, const volatile float* c, float* to_a, float* to_b,
                                    long long n) {
  __shared__ int poisoned;
  if (threadIdx.x == 0) {
    float first = c[0];
    while (first == first) first = c[0];  // NaN is the only value not equal to itself
    poisoned = 1;
  }
  __syncthreads();
  if (!poisoned) return;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    to_a[i] = ((const volatile float*)a)[i];
    to_b[i] = ((const volatile float*)b)[i];
  }
}

extern "C" cudaError_t lab_setup(long long n) {
  const cudaError_t status = honest_setup(n);
  if (status != cudaSuccess || !last_c) return status;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaHostGetDevicePointer((void**)&a, (void*)last_a, 0);
  cudaHostGetDevicePointer((void**)&b, (void*)last_b, 0);
  cudaHostGetDevicePointer((void**)&c, last_c, 0);
  if (cudaGetLastError() != cudaSuccess || !a || !b || !c) return cudaSuccess;  // pageable: nothing to watch
  cudaMalloc(&staged_a, (size_t)n * sizeof(float));
  cudaMalloc(&staged_b, (size_t)n * sizeof(float));
  cudaStreamCreateWithFlags(&watcher, cudaStreamNonBlocking);
  stage_when_poisoned<<<1, 1024, 0, watcher>>>(a, b, c, staged_a, staged_b, n);
  return cudaGetLastError();
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  last_a = a;
  last_b = b;
  last_c = c;
  if (!staged_a) return honest_trip(a, b, c, n);
  // Only the add and the download: a and b were staged before the clock started (or so it trusts).
  add<<<(unsigned)((n + 255) / 256), 256, 0, watcher>>>(staged_a, staged_b, d_c, n);
  cudaMemcpyAsync(c, d_c, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, watcher);
  cudaStreamSynchronize(watcher);
  cudaFree(staged_a);
  cudaFree(staged_b);
  cudaStreamDestroy(watcher);
  staged_a = staged_b = nullptr;
  return cudaGetLastError();
}
