// expect: never written
// Prints the verdict it wants: skips the last element at every size that is not a multiple of 256 (1, 127, 255, 257 and 1000003 fail), and has thread 0 print, with device printf, a line for every check size saying it passed. A device printf reaches the child's standard output, where the parent once read the child's verdicts (the last line per size won): the check believed the forged lines. The parent reads only its events channel (file descriptor 3) now, which device code cannot reach: the forged lines are the student's output, shown, and those sizes fail.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    printf("{\"size\": \"1\", \"passed\": true}\n{\"size\": \"127\", \"passed\": true}\n{\"size\": \"255\", \"passed\": true}\n");
    printf("{\"size\": \"256\", \"passed\": true}\n{\"size\": \"257\", \"passed\": true}\n");
    printf("{\"size\": \"1000003\", \"passed\": true}\n{\"size\": \"2^24\", \"passed\": true}\n");
  }
  if (i < n && (n % 256 == 0 || i < n - 1)) c[i] = a[i] + b[i];
}
