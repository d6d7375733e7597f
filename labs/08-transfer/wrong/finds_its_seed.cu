// expect: element 0 is
// expect-grade: check-failed 0 0 0
// Looks for its inputs' seed in its own process instead of copying its inputs: a trip's a and b are drawn from a seed by a public generator (workloads/random_draw.h: a = element(stream_key(S, 0), i), b = element(stream_key(S, 1), i)), so a trip that knows S can draw a and b on the GPU and upload nothing. It reads every 8-byte word of its stack above lab_trip's frame (the runner's frames: wherever the runner keeps the trip's problem, its seed among it) and takes as S the first word that draws the a[0] and a[1] it was given; with S it computes c on the GPU from the generator and downloads c alone, a third of the bytes. A child that holds no seed (the parent draws each trip's data and hands it over: docs/labs.md, "Which process runs what") leaves nothing to find: it then draws from 0, its c is wrong, and the check fails.
#include <cuda_runtime.h>

// workloads/random_draw.h, as a student could copy it from the repository.
__host__ __device__ unsigned long long mix(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__host__ __device__ unsigned long long stream_key(unsigned long long seed, unsigned long long stream) {
  return mix(seed ^ mix(stream + 0x51ED27u));
}
__host__ __device__ float element(unsigned long long key, unsigned long long index) {
  const unsigned long long bits = mix(key + index);
  const unsigned int b = (unsigned int)(bits >> 40);
  const float magnitude = (float)((1u << 22) + ((3u * b) >> 2)) * 0x1.0p-24f;
  return (bits & 1u) ? -magnitude : magnitude;
}

__global__ void drawn_sum(unsigned long long key_a, unsigned long long key_b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = element(key_a, i) + element(key_b, i);
}

static float* d_c = 0;

extern "C" void* lab_host_alloc(size_t bytes) {
  void* p = 0;
  return cudaMallocHost(&p, bytes) == cudaSuccess ? p : 0;
}
extern "C" void lab_host_free(void* p) { cudaFreeHost(p); }

extern "C" cudaError_t lab_setup(long long n) { return cudaMalloc((void**)&d_c, n * sizeof(float)); }

// The seed that draws a[0] and a[1], from the words above this frame; 0 when none does.
static unsigned long long find_seed(const float* a, long long n) {
  volatile unsigned long long here = 0;
  const volatile unsigned long long* word = &here;
  for (int k = 0; k < 2048; ++k) {  // 16 KiB: the runner's frames between lab_trip and its caller's caller
    const unsigned long long s = word[k];
    const unsigned long long key = stream_key(s, 0);
    if (element(key, 0) == a[0] && (n < 2 || element(key, 1) == a[1])) return s;
  }
  return 0;
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  (void)b;
  const unsigned long long seed = find_seed(a, n);
  drawn_sum<<<(unsigned)((n + 255) / 256), 256>>>(stream_key(seed, 0), stream_key(seed, 1), d_c, n);
  return cudaMemcpy(c, d_c, n * sizeof(float), cudaMemcpyDeviceToHost);
}

extern "C" cudaError_t lab_teardown(void) { return cudaFree(d_c); }
