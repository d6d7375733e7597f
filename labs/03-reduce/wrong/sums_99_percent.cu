// expect: are some elements skipped or added twice
// Sums only the first n - n / 100 elements: the last 1% of x is dropped (at n = 127, x[126]).
#define BLOCK 256
extern "C" __global__ void lab_reduce(const float* x, long long n, float* out) {
  __shared__ float partial[BLOCK];
  const int t = threadIdx.x;
  float sum = 0.0f;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long end = n - n / 100;
  for (long long i = (long long)blockIdx.x * blockDim.x + t; i < end; i += stride) sum += x[i];
  partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s >= 64; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < 32) {
    float v = partial[t] + partial[t + 32];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (t == 0) atomicAdd(out, v);
  }
}
