// Lab 1 reference solution: one thread per element.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  // Where this thread sits among all the threads of the grid. The product is done in 64 bits:
  // blockIdx.x * blockDim.x in unsigned int would wrap past 2^32 threads.
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  // The grid is rounded up to whole blocks, so the last block may have threads past the end of
  // the arrays. They must do nothing: a store past n writes someone else's memory.
  if (i < n) c[i] = a[i] + b[i];
  // Neighbouring threads touch neighbouring floats, so each warp's 32 loads and stores combine
  // into a few wide memory transactions (coalescing). That, not arithmetic, is what makes this
  // kernel fast: it moves 12 bytes per addition and is limited by memory bandwidth.
}
