// expect-check: pass
// expect-grade: graded 60 0 0
// Prints a timing and an environment of its own: right at every check size; at the benchmark size its first run (the untimed one the grade checks first) is right too and prints, with device printf, an environment line without peaks (so that no rate would be checked) and a benchmark line at a tenth of our time; every later run writes far past the end of c, so the child faults and the real timing never comes. The parent once read the child's standard output, where device printf goes, and graded the forged line. It reads only its events channel (file descriptor 3) now: the forged lines are the student's output, and the fault costs the performance points.
__device__ unsigned int runs_at_benchmark_size;
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (n > (1LL << 24)) {
    __shared__ unsigned int runs;  // read once per block: every thread of it takes the same way
    if (threadIdx.x == 0) runs = runs_at_benchmark_size;
    __syncthreads();
    if (runs > 0) {  // a timed sample: the fault
      if (i == 0) c[n + (1LL << 40)] = 0.0f;
      return;
    }
    if (i == 0) {
      printf("{\"event\": \"environment\", \"gpu\": \"NVIDIA H200\", \"ceilings\": {\"copy_gbps\": 4000.0}, \"peaks\": null}\n");
      printf("{\"benchmark\": \"67108864\", \"student\": {\"median_ms\": 0.02, \"gbps\": 40000.0, \"samples\": 40}, "
             "\"runtime\": {\"median_ms\": 0.2, \"gbps\": 4000.0, \"samples\": 40}}\n");
    }
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) atomicAdd(&runs_at_benchmark_size, 1u);
  }
  if (i < n) c[i] = a[i] + b[i];
}
