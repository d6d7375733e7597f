// expect-check: pass
// expect-sanitize: loads_before_bounds_check.cu:6
// Loads before the bounds check: the threads of the last block read a[i] and b[i] past the end of both arrays when n is not a multiple of 256, and only the store is guarded. The check passes; under `lab check --sanitize` the runner has nvcc compile with -G and allocates exact buffers, and memcheck reports the reads at this file's line 6 (PyCUDA's temporary kernel.cu is renamed by the runner's #line).
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float x = a[i];
  const float y = b[i];
  if (i < n) c[i] = x + y;
}
