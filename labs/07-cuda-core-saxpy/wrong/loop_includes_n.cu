// expect: past the end
// Loops while i <= n: the thread that reaches i == n updates y[n], one past the end. cuda.core checks no index: the runner's guard zone after y (one allocation from cuda.core's memory pool, y then the guard) catches the store.
extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride)
    y[i] = alpha * x[i] + y[i];
}
