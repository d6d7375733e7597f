// expect-check: pass
// expect-grade: graded 60 0 0
// Computes only the samples it expects to be checked: at the benchmark size it computes its first run (the untimed one the grade checks first) and then one launch in 16, and leaves C as it is otherwise. It stands for a kernel that recovered the generator's key from the floats of its first run (each float showed 25 of a draw's 64 bits, and every step of the old seed chain was an invertible mix) and derived from it which samples the grade would verify: the grade's keys are HMAC-SHA256 of its secret now (lab/child/grade_keys.h), so no key says anything about another, and it verifies every timed sample besides. The first sample it skips fails the performance part.
#define TILE 16

__device__ unsigned int launches_at_benchmark_size;
__device__ unsigned int blocks_done;

extern "C" __global__ void lab_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const bool benchmark_size = M >= 2048 && N >= 2048 && K >= 2048;
  const unsigned int launch = launches_at_benchmark_size;  // changed only by the last launch's last block
  const bool skip = benchmark_size && launch > 0 && launch % 16 != 0;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  if (!skip) {
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
      As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + (k0 + tx)] : 0.0f;
      Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.0f;
      __syncthreads();
#pragma unroll
      for (int j = 0; j < TILE; ++j) acc += As[ty][j] * Bs[j][tx];
      __syncthreads();
    }
    if (row < M && col < N) C[(long long)row * N + col] = acc;
  }
  if (benchmark_size && tx == 0 && ty == 0) {
    __threadfence();
    const unsigned int blocks = gridDim.x * gridDim.y;
    if (atomicAdd(&blocks_done, 1u) == blocks - 1) {  // the launch's last block
      blocks_done = 0;
      launches_at_benchmark_size = launch + 1;
      __threadfence();
    }
  }
}
