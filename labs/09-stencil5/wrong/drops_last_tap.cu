// expect: expected
// Drops a tap: the loop runs j = 0..3, so w[4] x[i + 4] is never added. Every y is wrong by one term, at least 1/80 of the sum of the terms' magnitudes (reference.py's draws keep each term at least 1/16), far above the tolerance.
extern "C" __global__ void stencil5(const float* x, const float* w, float* y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j < 4; ++j) sum = fmaf(w[j], x[i + j], sum);
  y[i] = sum;
}
