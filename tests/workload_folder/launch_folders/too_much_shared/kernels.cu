// 48 KiB of static shared memory (a staging tile) plus the 200000 bytes of dynamic shared memory
// workload.json asks for: 249152 bytes a block, above the 232448 an sm_90 block can have.
extern "C" __global__ void saxpy_inout(float a, const float* __restrict__ x, float* __restrict__ y, long long n) {
  __shared__ float tile[12288];
  extern __shared__ float scratch[];
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  scratch[threadIdx.x] = i < n ? y[i] : 0.0f;
  __syncthreads();
  if (i < n) y[i] = a * tile[threadIdx.x] + scratch[threadIdx.x];
}
