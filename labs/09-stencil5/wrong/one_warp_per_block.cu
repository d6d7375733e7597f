// expect-check: pass
// expect-grade: graded 60 0 25
// Correct but slow: only the first warp of each block works, looping over the block's 256 elements 32 at a time, one after another, while the other seven warps return at once. Every element is right, so it earns the check's points; but each SM has an eighth of the warps it could have waiting on memory, too few loads in flight to keep DRAM busy, so it earns fewer performance points than one thread per element (how many is a measurement: at most the middle tier's).
extern "C" __global__ void stencil5(const float* x, const float* w, float* y, long long n) {
  if (threadIdx.x >= 32) return;
  const long long base = (long long)blockIdx.x * blockDim.x;
#pragma unroll 1
  for (unsigned t = threadIdx.x; t < blockDim.x; t += 32) {
    const long long i = base + t;
    if (i >= n) return;
    float sum = 0.0f;
    for (int j = 0; j < 5; ++j) sum = fmaf(w[j], x[i + j], sum);
    y[i] = sum;
  }
}
