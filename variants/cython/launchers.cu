// The cython layer's C++ launchers (launchers.h): our kernels launched as the runtime layer
// launches them, the same kernel text compiled by nvcc with the same flags and the same
// grid and block (variants/gpu_launch.h), on the stream the caller gives. The runtime layer's
// launch lines are in its variant classes, so they are repeated here, one line each; the kernels
// are not: the kernel files are included as the runtime layer includes them, and launch_probe is
// declared by workloads/launch/kernels.h and compiled from workloads/launch/kernels.cu, a source
// of this module as it is of layerbench.
#include <dlfcn.h>

#include "variants/cython/launchers.h"
#include "variants/gpu_launch.h"
#include "workloads/launch/kernels.h"
#include "workloads/matmul/kernels.cu"
#include "workloads/reduce/kernels.cu"
#include "workloads/saxpy/kernels.cu"
#include "workloads/transpose/kernels.cu"
#include "workloads/vector_add/kernels.cu"

// A <<<>>> launch returns nothing: its error (a bad configuration, no kernel image for this GPU)
// is read right after it, which also clears it, as the runtime layer's LB_CHECK_LAUNCH does.
static cudaError_t launched() { return cudaGetLastError(); }

extern "C" {

static cudaError_t current_sm_count(int* sm_count) {
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  return cudaDeviceGetAttribute(sm_count, cudaDevAttrMultiProcessorCount, device);
}

cudaError_t lb_cython_reduce_blocks(long long n, unsigned* blocks) {
  int sm_count = 0;
  if (const cudaError_t e = current_sm_count(&sm_count); e != cudaSuccess) return e;
  *blocks = lb::grid_stride_blocks(n / 4, sm_count);
  return cudaSuccess;
}

cudaError_t lb_cython_vector_add(const float* a, const float* b, float* c, long long n, cudaStream_t stream) {
  vector_add<<<lb::flat_blocks(n), LB_BLOCK, 0, stream>>>(a, b, c, n);
  return launched();
}

cudaError_t lb_cython_saxpy(float alpha, const float* x, float* y, long long n, cudaStream_t stream) {
  saxpy<<<lb::flat_blocks(n), LB_BLOCK, 0, stream>>>(alpha, x, y, n);
  return launched();
}

cudaError_t lb_cython_reduce(const float* x, long long n, float* partials, unsigned blocks, float* sum,
                             cudaStream_t stream) {
  reduce_sum<<<blocks, LB_BLOCK, 0, stream>>>(x, n, partials, sum);
  return launched();
}

cudaError_t lb_cython_matmul(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  int sm_count = 0;
  if (const cudaError_t e = current_sm_count(&sm_count); e != cudaSuccess) return e;
  const lb::MatmulGrid grid = lb::matmul_grid(m, n, k, sm_count);
  matmul_tiled<<<dim3(grid.x, grid.y, grid.z), LB_MM_THREADS, 0, stream>>>(a, b, c, m, n, k);
  return launched();
}

cudaError_t lb_cython_transpose(const float* a, float* b, int m, int n, cudaStream_t stream) {
  const dim3 grid(lb::transpose_grid_x(n), lb::transpose_grid_y(m));
  const lb::TransposeBlock block;
  transpose<<<grid, dim3(block.x, block.y), 0, stream>>>(a, b, m, n);
  return launched();
}

cudaError_t lb_cython_launch_probe(float* out, float value, cudaStream_t stream) {
  launch_probe<<<1, 1, 0, stream>>>(out, value);
  return launched();
}

const char* lb_cython_cudart_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cudaRuntimeGetVersion), &info) && info.dli_fname) return info.dli_fname;
  return "";
}

}  // extern "C"
