// expect: never written
// Skips the last few elements: only whole groups of 4 are added (n % 4 leftovers never written).
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4 * 4) c[i] = a[i] + b[i];
}
