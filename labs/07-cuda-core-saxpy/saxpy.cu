// Lab 7: SAXPY through cuda.core, y = alpha * x + y, in place, with a grid-stride loop (lab 2's kernel).
//
// You write device code only. The runner compiles this text with cuda.core's Program (NVRTC, in
// the grading process), takes lab_saxpy from the compiled code with get_kernel and launches it
// with cuda.core.launch: 256-thread blocks, but only as many blocks as keep the GPU busy (4 per
// SM), so for a large n the grid has FEWER threads than there are elements and each thread must
// handle several. Keep the extern "C": get_kernel finds the kernel by its plain name.
// Replace every //@@ line with code. As given, the kernel changes nothing, and the check fails.

extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  //@@ Compute this thread's first index (as a long long) and the stride: the number of threads
  //@@ in the whole grid, gridDim.x * blockDim.x.

  //@@ Loop from the first index while it is < n, adding the stride each time, and update
  //@@ y[i] = alpha * x[i] + y[i].
}
