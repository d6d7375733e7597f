// expect: never written
// No grid-stride loop: one element per thread covers only the first gridDim.x * blockDim.x elements (the grid is 4 blocks per SM); the rest of y keeps its starting value.
extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}
