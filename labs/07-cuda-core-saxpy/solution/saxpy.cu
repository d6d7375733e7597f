// Lab 7 reference solution: lab 2's grid-stride loop. cuda.core compiles it with NVRTC (as lab 2's
// runner did, in the same process) and launches it on the harness's own stream, so the kernel and
// its time are lab 2's; the layer adds a Python call per launch, which the GPU never sees.
extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  // The grid is sized to the GPU (4 blocks per SM), not to n: one pass of it covers only
  // gridDim.x * blockDim.x elements. Each thread starts at its global index and jumps by the size
  // of the grid until it passes n, so together the threads visit every element exactly once.
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    // In every pass a warp still touches 32 neighbouring floats: the loads stay coalesced.
    y[i] = alpha * x[i] + y[i];
  }
}
