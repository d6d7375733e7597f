// y = a * x + y, in place: y is an in/out buffer (workload.json's role "inout"). The harness draws
// it as it draws an input, uploads it, and after the run checks what the kernel left in it against
// reference.py's a * x + y of the values it drew. One thread per element; the grid covers n.
extern "C" __global__ void saxpy_inout(float a, const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
