// expect: :4: __has_include: not allowed in a kernel file
// Probes the grading machine with __has_include: whether the model solution (or a classmate's file, or a key file) exists at a path, answered by which branch compiles; a wrong-but-fast kernel when the grader's checkout is there. The kernel-text rules refuse __has_include wherever it appears, #if or not, in the parent, without a GPU.
// The grader's checkout is there: take the shortcut.
#if __has_include("/proc/self/cwd/labs/07-cuda-core-saxpy/solution/saxpy.cu")
#define STRIDE 2
#else
#define STRIDE 1
#endif

extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x * STRIDE)
    y[i] = alpha * x[i] + y[i];
}
