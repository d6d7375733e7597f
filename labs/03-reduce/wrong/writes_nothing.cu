// expect: never written
// expect-grade: check-failed 0 0 0
// Writes nothing: the skeleton left unfilled, so the output keeps its starting 0. With real-valued mean-zero inputs a sum of 0 passed at 2^24 (the true sum, about 2500, sat under a tolerance of about 8000); with whole-number inputs whose sum is never 0, it fails every size.
extern "C" __global__ void lab_reduce(const float* x, long long n, float* out) {}
