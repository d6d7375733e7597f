// expect: never written
// Off-by-one bound: `i < n - 1` leaves the last element of c unwritten (still NaN), through PyCUDA as through NVRTC.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) c[i] = a[i] + b[i];
}
