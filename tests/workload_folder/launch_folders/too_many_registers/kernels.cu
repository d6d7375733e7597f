// 96 values held in registers at once (ptxas gives it 112 registers a thread for sm_90), launched in
// blocks of 1024 threads with no __launch_bounds__ to make the compiler keep to them: 114688
// registers a block, above the 65536 a block can have ("too many resources requested for launch").
extern "C" __global__ void saxpy_inout(float a, const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v[96];
#pragma unroll
  for (int j = 0; j < 96; ++j) v[j] = x[(i + j) % n];
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 96; ++j) s = s * v[95 - j] + v[j];
  y[i] = a * x[i] + y[i] + (s == 1234.5f ? 1.0f : 0.0f);
}
