// Lab 6: vector add through PyCUDA, c = a + b: lab 1's kernel, compiled and launched by another layer.
//
// You write device code only, as in lab 1. The runner hands this text to PyCUDA's SourceModule,
// which compiles it with nvcc, and launches lab_vector_add with PyCUDA's prepared_async_call:
// blocks of 256 threads, ceil(n / 256) blocks, so there is at least one thread per element, and
// usually a few more. Keep the extern "C": the runner finds the kernel by its plain name.
// Replace every //@@ line with code. As given, the kernel writes nothing, and the check fails.

extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  //@@ Compute this thread's global index i from blockIdx.x, blockDim.x and threadIdx.x, as a
  //@@ long long (n can be larger than an int can count).

  //@@ Only threads with i < n may touch memory (the last block can have threads past the end).
  //@@ For those threads, store a[i] + b[i] into c[i].
}
