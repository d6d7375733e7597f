// Lab 2: SAXPY, y = alpha * x + y, in place, with a grid-stride loop.
//
// You write device code only. The runner launches 256-thread blocks, but only as many blocks as
// keep the GPU busy (4 per SM): for a large n the grid has FEWER threads than there are elements,
// so each thread must handle several elements. A kernel that does one element per thread leaves
// most of y unchanged, and the check fails. As given, the kernel changes nothing.

extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  //@@ Compute this thread's first index (as a long long) and the stride: the number of threads
  //@@ in the whole grid, gridDim.x * blockDim.x.

  //@@ Loop from the first index while it is < n, adding the stride each time, and update
  //@@ y[i] = alpha * x[i] + y[i].
}
