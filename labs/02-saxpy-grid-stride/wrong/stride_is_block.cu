// expect: wrong
// Strides by blockDim.x instead of the whole grid: the blocks' walks overlap, so most elements get alpha * x added several times.
extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
    y[i] = alpha * x[i] + y[i];
}
