// expect-check: pass
// expect-grade: graded 60 0 0
// Prints a timing and an environment of its own, through cuda.core (NVRTC in the child; device printf reaches its standard output): right at every check size; at the benchmark size its first run (the untimed one the grade checks first) is right too and prints an environment line without peaks and a benchmark line at a tenth of our time; every later run writes far past the end of y, so the child faults and the real timing never comes. The parent once graded the forged line (1.30 of ours). It reads only its events channel (file descriptor 3) now: the forged lines are the student's output, and the fault costs the performance points.
__device__ unsigned int runs_at_benchmark_size;
extern "C" __global__ void lab_saxpy(float alpha, const float* x, float* y, long long n) {
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (n > (1LL << 24)) {
    __shared__ unsigned int runs;  // read once per block: every thread of it takes the same way
    if (threadIdx.x == 0) runs = runs_at_benchmark_size;
    __syncthreads();
    if (runs > 0) {  // a timed sample: the fault
      if (first == 0) y[n + (1LL << 40)] = 0.0f;
      return;
    }
    if (first == 0) {
      printf("{\"event\": \"environment\", \"gpu\": \"NVIDIA H200\", \"ceilings\": {\"copy_gbps\": 4000.0}, \"peaks\": null}\n");
      printf("{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.02, \"gbps\": 40000.0, \"samples\": 40}, "
             "\"runtime\": {\"median_ms\": 0.2, \"gbps\": 4000.0, \"samples\": 40}}\n");
    }
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) atomicAdd(&runs_at_benchmark_size, 1u);
  }
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = first; i < n; i += stride) y[i] = alpha * x[i] + y[i];
}
