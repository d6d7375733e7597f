// Lab 1: vector add, c = a + b.
//
// You write device code only. The runner launches this kernel with blocks of 256 threads and
// ceil(n / 256) blocks, so there is at least one thread per element, and usually a few more.
// Replace every //@@ line with code. As given, the kernel writes nothing, and the check fails.

extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  //@@ Compute this thread's global index i from blockIdx.x, blockDim.x and threadIdx.x.
  //@@ Make it a long long: n can be larger than an int can count.

  //@@ Only threads with i < n may touch memory (the last block can have threads past the end).
  //@@ For those threads, store a[i] + b[i] into c[i].
}
