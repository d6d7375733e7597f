// Lab 4 reference solution: 16 x 16 shared-memory tiles, one thread per element of C.
#define TILE 16  // the runner launches TILE x TILE threads per block

extern "C" __global__ void lab_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  // A naive kernel reads a row of A and a column of B from device memory for every element of C:
  // 2K loads per 2K flops. Here a block stages a 16 x 16 tile of A and one of B in shared memory
  // and every value staged is used 16 times, so device-memory traffic drops 16-fold.
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;  // y walks the rows of C
  const int col = blockIdx.x * TILE + tx;  // x walks the columns: a warp's threads read and write
                                           // neighbouring floats of a row (coalesced)
  float acc = 0.0f;

  // ceil(K / TILE) tiles: the last one may be partial when K is not a multiple of 16.
  for (int k0 = 0; k0 < K; k0 += TILE) {
    // Each thread stages one element of each tile. Elements outside a matrix are staged as 0,
    // so they add nothing to acc; that is what makes any M, N, K work. Threads outside C still
    // load (zeros) and, above all, still reach both barriers.
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + (k0 + tx)] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.0f;
    // Every element of both tiles must be in shared memory before anyone reads them.
    __syncthreads();

    // As[ty][j] is the same address for the whole warp (a broadcast); Bs[j][tx] is 32 different
    // banks: neither causes bank conflicts.
#pragma unroll
    for (int j = 0; j < TILE; ++j) acc += As[ty][j] * Bs[j][tx];
    // Everyone must be done with this tile before the next iteration overwrites it.
    __syncthreads();
  }

  // Only threads inside C store; the others exist because the grid is rounded up to whole tiles.
  if (row < M && col < N) C[(long long)row * N + col] = acc;
}
