// expect: attributes are not allowed
// A function marked to run when the file is loaded (__attribute__((constructor))), before the runner calls anything: the rules on the text refuse the attribute, and the [[gnu::constructor]] spelling too.
#include <cuda_runtime.h>

static int loaded = 0;
__attribute__((constructor)) static void on_load() { loaded = 1; }
[[gnu::constructor]] static void on_load_too() { loaded = 2; }

extern "C" void* lab_host_alloc(size_t bytes) { return malloc(bytes); }
extern "C" void lab_host_free(void* p) { free(p); }
extern "C" cudaError_t lab_setup(long long n) { return cudaSuccess; }
extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) { return cudaSuccess; }
extern "C" cudaError_t lab_teardown(void) { return cudaSuccess; }
