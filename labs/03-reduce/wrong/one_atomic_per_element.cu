// expect-check: pass
// expect-grade: graded 60 0 10
// Correct but slow: one atomicAdd per element, all to the same address, so the additions are serialised in the memory system. It passes every size (a running fp32 sum of whole numbers is exact) and lands at the bottom of the tiers.
extern "C" __global__ void lab_reduce(const float* x, long long n, float* out) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(out, x[i]);
}
