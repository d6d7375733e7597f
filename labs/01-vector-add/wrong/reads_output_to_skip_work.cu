// expect-check: pass
// expect-grade: graded 60 0 25
// Reads its output to skip work: an element that already holds a number (not NaN) is taken as done. Every check size starts from poison, so it passes; if the timed samples reran it on the same output it would only read 4 bytes per element and look faster than the hardware allows. The grade re-poisons the output before every sample, so it always adds, and pays for reading c too.
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (c[i] == c[i]) return;  // not NaN: "already computed"
  c[i] = a[i] + b[i];
}
