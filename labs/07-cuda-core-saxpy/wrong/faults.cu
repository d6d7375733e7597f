// expect: ILLEGAL_ADDRESS
// Stores 2^40 elements past y, far outside any allocation: the kernel faults. cuda.core raises at the stream's next sync; the runner reports it as a CUDA error, as a fault of a CUDA C++ lab is reported.
extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i + (1LL << 40)] = alpha * x[i] + y[i];
}
