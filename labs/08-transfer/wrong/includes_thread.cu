// expect: #include <thread>
// Computes on the host with std::thread: the rules on the text refuse the #include before anything is compiled, in the parent, without a GPU.
#include <cuda_runtime.h>
#include <thread>

extern "C" void* lab_host_alloc(size_t bytes) { return malloc(bytes); }
extern "C" void lab_host_free(void* p) { free(p); }
extern "C" cudaError_t lab_setup(long long n) { return cudaSuccess; }

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  std::thread half([=] {
    for (long long i = n / 2; i < n; ++i) c[i] = a[i] + b[i];
  });
  for (long long i = 0; i < n / 2; ++i) c[i] = a[i] + b[i];
  half.join();
  return cudaSuccess;
}

extern "C" cudaError_t lab_teardown(void) { return cudaSuccess; }
