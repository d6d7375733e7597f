// Lab 9: a 1D 5-point stencil, y[i] = w[0] x[i] + w[1] x[i+1] + w[2] x[i+2] + w[3] x[i+3] + w[4] x[i+4].
//
// You write device code only. The workload is a folder (examples/workloads/stencil5): its
// workload.json says what the runner passes and how it launches, and its reference.py is the check.
// x holds n + 4 values: the two-element halo on each side is part of the input, so y[i]'s window
// starts at x[i]. The runner launches blocks of 256 threads and ceil(n / 256) blocks.
// Replace every //@@ line with code. As given, the kernel writes nothing, and the check fails.

extern "C" __global__ void stencil5(const float* x, const float* w, float* y, long long n) {
  //@@ Compute this thread's global index i (a long long) from blockIdx.x, blockDim.x and threadIdx.x.

  //@@ Threads with i >= n must not touch memory: return.

  //@@ Sum w[j] * x[i + j] for j = 0..4 (in that order, in float) and store the sum into y[i].
}
