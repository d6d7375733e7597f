// expect: calls pthread_create
// Computes on the host, in threads it starts itself: pthread_create declared by hand (no header needed), four threads adding a quarter each. The file compiles; the check of its symbols refuses it before it runs.
#include <cuda_runtime.h>

extern "C" int pthread_create(unsigned long* thread, const void* attributes, void* (*run)(void*), void* argument);
extern "C" int pthread_join(unsigned long thread, void** result);

struct Quarter {
  const float *a, *b;
  float* c;
  long long begin, end;
};

static void* add_quarter(void* p) {
  Quarter* q = (Quarter*)p;
  for (long long i = q->begin; i < q->end; ++i) q->c[i] = q->a[i] + q->b[i];
  return nullptr;
}

extern "C" void* lab_host_alloc(size_t bytes) { return malloc(bytes); }
extern "C" void lab_host_free(void* p) { free(p); }
extern "C" cudaError_t lab_setup(long long n) { return cudaSuccess; }

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  Quarter quarters[4];
  unsigned long threads[4];
  for (int t = 0; t < 4; ++t) {
    quarters[t] = {a, b, c, n * t / 4, n * (t + 1) / 4};
    pthread_create(&threads[t], nullptr, add_quarter, &quarters[t]);
  }
  for (int t = 0; t < 4; ++t) pthread_join(threads[t], nullptr);
  return cudaSuccess;
}

extern "C" cudaError_t lab_teardown(void) { return cudaSuccess; }
