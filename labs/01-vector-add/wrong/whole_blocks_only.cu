// expect: multiple of the block size
// Skips any block that would run past n, so the partial last block does nothing: right only when n is a multiple of 256.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  if ((long long)(blockIdx.x + 1) * blockDim.x > n) return;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];
}
