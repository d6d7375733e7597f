// saxpy device code (y = alpha*x + y, in place). No host-only includes: shared by nvcc and NVRTC.
// float4 loads and stores in a grid-stride loop, then the n % 4 tail one element at a time.
extern "C" __global__ void saxpy(float alpha, const float* __restrict__ x, float* __restrict__ y,
                                 long long n) {
  const long long quads = n / 4;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for (long long i = first; i < quads; i += stride) {
    const float4 u = x4[i];
    float4 v = y4[i];
    v.x = fmaf(alpha, u.x, v.x);
    v.y = fmaf(alpha, u.y, v.y);
    v.z = fmaf(alpha, u.z, v.z);
    v.w = fmaf(alpha, u.w, v.w);
    y4[i] = v;
  }
  const long long tail = quads * 4 + first;
  if (tail < n) y[tail] = fmaf(alpha, x[tail], y[tail]);
}
