// expect: past the end
// No bounds check: the threads of the last block past n store into y[n], y[n+1], ... (the runner's guard zone after y), and read past the end of x too.
extern "C" __global__ void stencil5(const float* x, const float* w, float* y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int j = 0; j < 5; ++j) sum = fmaf(w[j], x[i + j], sum);
  y[i] = sum;
}
