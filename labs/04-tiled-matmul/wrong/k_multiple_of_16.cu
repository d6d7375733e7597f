// expect: wrong
// Correct only for multiples of 16: walks K in K / 16 whole tiles, so the last K % 16 products are never added (and K < 16 gives C = 0).
#define TILE 16
extern "C" __global__ void lab_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < K / TILE; ++t) {
    const int k0 = t * TILE;
    As[ty][tx] = row < M ? A[(long long)row * K + (k0 + tx)] : 0.0f;
    Bs[ty][tx] = col < N ? B[(long long)(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int j = 0; j < TILE; ++j) acc += As[ty][j] * Bs[j][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(long long)row * N + col] = acc;
}
