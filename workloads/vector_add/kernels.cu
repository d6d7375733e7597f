// vector_add device code. Kept free of host-only includes: the runtime layer compiles this text
// with nvcc and the driver layer compiles the same text at run time with NVRTC.
//
// Each thread moves 16 bytes per load (float4), in a grid-stride loop so that a grid sized to the
// GPU covers any n; the last n % 4 elements are done one at a time.
extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, long long n) {
  const long long quads = n / 4;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* c4 = reinterpret_cast<float4*>(c);
  for (long long i = first; i < quads; i += stride) {
    const float4 x = a4[i], y = b4[i];
    c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  const long long tail = quads * 4 + first;
  if (tail < n) c[tail] = a[tail] + b[tail];
}
