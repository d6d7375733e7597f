// Lab 2 reference solution: a grid-stride loop.
extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  // The grid is sized to the GPU (a few blocks per SM), not to n, so one pass of the grid covers
  // only gridDim.x * blockDim.x elements. Each thread starts at its global index and jumps by
  // the size of the grid until it passes n: together the threads visit every element exactly
  // once, whatever n is, and the same kernel works for any grid size.
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    // In every pass, a warp still touches 32 neighbouring floats: the loads stay coalesced.
    y[i] = alpha * x[i] + y[i];
  }
}
