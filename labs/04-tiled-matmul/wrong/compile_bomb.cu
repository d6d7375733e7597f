// expect: did not compile: the compiler ran past
// A compile bomb: Tree<19, 0> instantiates 2^20 distinct class templates (each index a class of its own, so no instantiation is shared), which NVRTC works through for minutes at gigabytes. Compiled in the grade's process it would hang the check with no outcome, or take the grader's memory; in the limited compile process it ends at whichever limit it reaches first, and the check says which in one line: "did not compile: the compiler ran past 4096 MiB of memory" (about 24 s in, on a 2-core machine) or "... past 30 s" (on a machine that fills memory more slowly). It breaks no rule: it is plain C++.
template <int Depth, int Index>
struct Tree {
  static constexpr int value = Tree<Depth - 1, 2 * Index>::value + Tree<Depth - 1, 2 * Index + 1>::value;
};
template <int Index>
struct Tree<0, Index> {
  static constexpr int value = Index & 1;
};

extern "C" __global__ void lab_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
  C[row * N + col] = sum + static_cast<float>(Tree<19, 0>::value - (1 << 18));
}
