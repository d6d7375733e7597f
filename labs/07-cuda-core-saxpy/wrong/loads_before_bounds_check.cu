// expect-check: pass
// expect-sanitize: loads_before_bounds_check.cu:7
// Loads before the bounds check: x[i] is fetched ahead of the loop's test, so a thread whose first index is already past n (the grid covers a small n with a whole block) reads past the end of x. The check passes; under `lab check --sanitize` cuda.core's Program compiles with debug (-G), the buffers are exact, and memcheck reports the read at this file's line 7.
extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  float xi = x[i];
  for (; i < n; i += stride) {
    y[i] = alpha * xi + y[i];
    if (i + stride < n) xi = x[i + stride];
  }
}
