// expect: inline assembly is not allowed
// Inline assembly on the host: a system call (getpid, 39 on x86-64) that no symbol of the compiled file would show. The rules on the text refuse it, naming this line 12.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static long pid_by_syscall() {
  long result;
  asm volatile("syscall" : "=a"(result) : "a"(39L) : "rcx", "r11", "memory");
  return result;
}

extern "C" void* lab_host_alloc(size_t bytes) { return malloc(bytes); }
extern "C" void lab_host_free(void* p) { free(p); }
extern "C" cudaError_t lab_setup(long long n) { return pid_by_syscall() > 0 ? cudaSuccess : cudaErrorUnknown; }
extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) { return cudaSuccess; }
extern "C" cudaError_t lab_teardown(void) { return cudaSuccess; }
