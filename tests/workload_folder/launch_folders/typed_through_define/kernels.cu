// saxpy_inout with its element type a macro: T is float wherever the kernel is compiled, so the
// parameters are float, const float*, float*, as workload.json says.
#define T float

extern "C" __global__ void saxpy_inout(T a, const T* __restrict__ x, T* __restrict__ y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
