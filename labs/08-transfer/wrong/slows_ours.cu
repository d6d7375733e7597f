// expect-check: pass
// expect-grade: graded 60 0 10
// Slows our trip down: a thread it starts in lab_setup (pthread_create, found from memcpy's address in libc's dynamic symbol table: the rules allow memcpy, which lies in libc) copies 64 MiB to the GPU and back, forever, on a stream of its own, so that any trip that runs meanwhile on the same link is slowed. When our trip ran in the same trip process as the student's, in turn with it, ours was slowed (on an H100, 11.3 ms to 12.7 ms) and the student's ratio rose. Ours now runs in a trip process of its own, before the student's is started and after it has exited and everything it left is ended: ours is not slowed, and the student's own trip, slowed by its own thread, is an honest and correct one. On the H100 at ab1abb3 ours took 29.65 ms with the hand-over, as in the solution's grade (29.53), and this file's own trip, slowed by its thread and without overlap, 0.85 of ours: the no-overlap tier (trips/slows_ours.json of that run; the tiers were 0.9 / 0.8 / 0.4 then).
#include <cuda_runtime.h>

// Any function of libc's, by name, without naming it: memcpy (which the rules allow) lies in libc;
// from its address back to libc's ELF header (the first page that starts with \x7fELF), then its
// program headers to its dynamic section, to its symbol and string tables and its GNU hash table.
typedef unsigned long long u64;
static void* libc(const char* name) {
  const unsigned char* base = (const unsigned char*)((u64)&memcpy & ~(u64)4095);
  while (!(base[0] == 0x7f && base[1] == 'E' && base[2] == 'L' && base[3] == 'F')) base -= 4096;
  const unsigned char* ph = base + *(const u64*)(base + 32);
  const long long* dyn = 0;
  for (int i = 0; i < *(const unsigned short*)(base + 56); ++i, ph += 56)
    if (*(const unsigned*)ph == 2) dyn = (const long long*)(base + *(const u64*)(ph + 16));  // PT_DYNAMIC
  const char* strtab = 0;
  const unsigned char* symtab = 0;
  const unsigned* hash = 0;
  for (; dyn[0] != 0; dyn += 2) {
    const unsigned char* p = (const unsigned char*)dyn[1];
    if (p < base) p = base + dyn[1];  // not relocated by the loader on every architecture
    if (dyn[0] == 5) strtab = (const char*)p;                 // DT_STRTAB
    if (dyn[0] == 6) symtab = p;                              // DT_SYMTAB
    if (dyn[0] == 0x6ffffef5) hash = (const unsigned*)p;      // DT_GNU_HASH
  }
  unsigned h = 5381;
  for (const char* c = name; *c; ++c) h = h * 33 + (unsigned char)*c;
  const unsigned* buckets = hash + 4 + hash[2] * 2;
  const unsigned* chain = buckets + hash[0];
  for (unsigned i = buckets[h % hash[0]]; i != 0; ++i) {
    const unsigned link = chain[i - hash[1]];
    const unsigned char* sym = symtab + 24 * (u64)i;
    const char* s = strtab + *(const unsigned*)sym;
    const char* c = name;
    while (*c && *c == *s) ++c, ++s;
    if ((link | 1) == (h | 1) && *c == 0 && *s == 0 && *(const u64*)(sym + 8)) return (void*)(base + *(const u64*)(sym + 8));
    if (link & 1) break;
  }
  return 0;
}

typedef int (*thread_start_fn)(unsigned long*, const void*, void* (*)(void*), void*);

// The link kept busy: 64 MiB up, 64 MiB down, again and again.
static void* keep_the_link_busy(void*) {
  const size_t bytes = (size_t)64 << 20;
  void* host = nullptr;
  void* device = nullptr;
  cudaStream_t stream;
  if (cudaMallocHost(&host, bytes) != cudaSuccess || cudaMalloc(&device, bytes) != cudaSuccess ||
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
    return nullptr;
  for (;;) {
    cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream);
    cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
  }
  return nullptr;
}

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

extern "C" cudaError_t lab_setup(long long n) {
  static int started = 0;
  if (!started) {
    unsigned long thread = 0;
    ((thread_start_fn)libc("pthread_create"))(&thread, nullptr, keep_the_link_busy, nullptr);
    started = 1;
  }
  return honest_setup(n);
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) { return honest_trip(a, b, c, n); }
