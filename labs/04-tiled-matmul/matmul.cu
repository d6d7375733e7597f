// Lab 4: tiled matrix multiply, C = A * B, row-major fp32. A is M x K, B is K x N, C is M x N.
//
// You write device code only. The runner launches 16 x 16 thread blocks and a grid of
// (ceil(N / 16), ceil(M / 16)) blocks: each block computes one 16 x 16 tile of C, and thread
// (threadIdx.x, threadIdx.y) computes the element in column blockIdx.x * 16 + threadIdx.x,
// row blockIdx.y * 16 + threadIdx.y. M, N and K can be any size, not only multiples of 16.
// As given, the kernel writes nothing, and the check fails.

#define TILE 16  // the runner launches TILE x TILE threads per block

extern "C" __global__ void lab_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;

  //@@ Loop over the tiles of K: k0 = 0, TILE, 2 * TILE, ... while k0 < K.
  //@@   1. Each thread loads ONE element of A's tile and ONE of B's tile:
  //@@        As[ty][tx] = A[row * K + (k0 + tx)]   (0.0f if row >= M or k0 + tx >= K)
  //@@        Bs[ty][tx] = B[(k0 + ty) * N + col]   (0.0f if k0 + ty >= K or col >= N)
  //@@   2. __syncthreads(): the whole tile must be loaded before anyone reads it.
  //@@   3. acc += As[ty][j] * Bs[j][tx] for j = 0 .. TILE - 1.
  //@@   4. __syncthreads(): nobody may overwrite the tile while others still read it.

  //@@ Finally, only threads inside C store: if (row < M && col < N) C[row * N + col] = acc.
  //@@ (Compute the index as a long long if you want it to work for very large matrices.)
}
