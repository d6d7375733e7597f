// Everything the launch check reads, within the limits: __launch_bounds__(BLOCK) with the block
// workload.json gives, 4 KiB static shared memory plus 16 KiB dynamic, and the parameters typed
// through macros (T, INDEX), which the signature check expands as the preprocessor does.
#define BLOCK 256
#define T float
#define INDEX long long

extern "C" __global__ void __launch_bounds__(BLOCK) saxpy_inout(T a, const T* __restrict__ x, T* __restrict__ y, INDEX n) {
  __shared__ T tile[1024];
  extern __shared__ T scratch[];   // 16384 bytes: 16 floats a thread, one of them used
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  scratch[threadIdx.x * 16] = i < n ? y[i] : 0.0f;
  __syncthreads();
  if (i < n) y[i] = a * tile[threadIdx.x] + scratch[threadIdx.x * 16];
}
