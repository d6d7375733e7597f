// expect: never written
// expect-grade: check-failed 17.14 0 0
// Prints the check's verdicts through PyCUDA (which compiles this with nvcc and launches it; device printf reaches the child's standard output): thread 0 prints, on every launch, the child's own line for every check size saying it passed, as the child writes them on its events channel. The kernel skips the last element at every size that is not a multiple of 256, so 1, 127, 255, 257 and 1000003 fail (c[n - 1] stays the NaN poison) and only 256 and 2^24 pass. The parent reads only file descriptor 3, which device code cannot reach: the forged lines are the student's output, shown and never parsed, and the check fails with 2 of 7 sizes (17.14 of 60 points), so the performance part earns nothing.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    printf("{\"size\": \"1\", \"passed\": true}\n{\"size\": \"127\", \"passed\": true}\n{\"size\": \"255\", \"passed\": true}\n");
    printf("{\"size\": \"256\", \"passed\": true}\n{\"size\": \"257\", \"passed\": true}\n");
    printf("{\"size\": \"1000003\", \"passed\": true}\n{\"size\": \"2^24\", \"passed\": true}\n");
  }
  if (i < n && (n % 256 == 0 || i < n - 1)) c[i] = a[i] + b[i];
}
