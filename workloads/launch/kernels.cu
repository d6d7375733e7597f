// launch_probe: the smallest kernel that still leaves a result to check. One thread stores one
// value, so a run of n launches can be verified (the last one wrote n) and the time is all launch
// overhead. No host-only includes: shared by nvcc and NVRTC.
extern "C" __global__ void launch_probe(float* out, float value) {
  if (threadIdx.x == 0) *out = value;
}
