// expect: y[0] = nan
// A halo mistake: takes x[i] for the window's centre and reads x[i - 2] .. x[i + 2], then skips the first two threads so as not to read before x. But x already carries its halo: y[i]'s window starts at x[i]. Every y is the stencil of a window two places to the left, and y[0], y[1] are never written (still NaN), which the check reports first.
extern "C" __global__ void stencil5(const float* x, const float* w, float* y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 || i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j < 5; ++j) sum = fmaf(w[j], x[i + j - 2], sum);
  y[i] = sum;
}
