// expect-check: pass
// expect-sanitize: loads_before_bounds_check.cu:6
// Loads before the bounds check: the threads of the last block read a[i] and b[i] past the end of both arrays when n is not a multiple of 256, and only the store is guarded. The check passes; under `lab check --sanitize` the kernel compile process has NVRTC compile it with -G (the program named by this file's path), the runner allocates exact buffers, and memcheck reports the reads at this file's line 6.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float x = a[i];
  const float y = b[i];
  if (i < n) c[i] = x + y;
}
