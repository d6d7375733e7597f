// saxpy device code (y = alpha*x + y, in place). No host-only includes: shared by nvcc and NVRTC.
// The same shape as vector_add: one float4 per thread over a grid that covers the array, the
// n % 4 leftover elements one per thread after the last float4.
extern "C" __global__ void saxpy(float alpha, const float* __restrict__ x, float* __restrict__ y,
                                 long long n) {
  const long long quads = n / 4;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < quads) {
    const float4 u = reinterpret_cast<const float4*>(x)[i];
    float4 v = reinterpret_cast<float4*>(y)[i];
    v.x = fmaf(alpha, u.x, v.x);
    v.y = fmaf(alpha, u.y, v.y);
    v.z = fmaf(alpha, u.z, v.z);
    v.w = fmaf(alpha, u.w, v.w);
    reinterpret_cast<float4*>(y)[i] = v;
  } else {
    const long long tail = quads * 4 + (i - quads);
    if (tail < n) y[tail] = fmaf(alpha, x[tail], y[tail]);
  }
}
