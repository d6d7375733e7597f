// expect: never written
// Wrong index: gridDim.x where blockDim.x belongs. Right while the grid has one block (n <= 256) and by luck at 257 (two blocks, overlapping); from n = 1000003 on, block b covers only [b * gridDim.x, b * gridDim.x + 255], leaving gaps never written.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * gridDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
