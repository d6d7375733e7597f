// expect: ILLEGAL_ADDRESS
// Stores 2^40 elements past c, far outside any allocation: the kernel faults. PyCUDA raises at its stream's next synchronize; the runner reports it as a CUDA error (with the driver's name for it), as a fault of a CUDA C++ lab is reported.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i + (1LL << 40)] = a[i] + b[i];
}
