// expect: past the end
// No bounds check: the threads of the last block past n store into c[n], c[n+1], ... PyCUDA checks no index either: the runner's guard zone after c (one mem_alloc, the output then the guard) catches the stores.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];
}
