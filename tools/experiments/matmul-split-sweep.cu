// The measurements behind variants/gpu_launch.h's matmul_grid: matmul_tiled at every split of K
// 1, 2, 4, 8 and 16 against cuBLAS SGEMM (fp32, no TF32), at the default sizes, the odd ones and some
// between, on a cold L2 (256 MiB written before each launch), median of 30 launches. Each result is
// checked against cuBLAS's (max |difference|, in the CSV); `chosen` marks matmul_grid's pick.
// tools/experiments/matmul-split-sweep.sh builds and runs it: CSV on stdout.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "variants/gpu_launch.h"
#include "workloads/matmul/kernels.cu"

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    if (const cudaError_t e = (call); e != cudaSuccess) {                                            \
      std::fprintf(stderr, "%s failed at line %d: %s\n", #call, __LINE__, cudaGetErrorString(e));    \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)
#define CHECK_CUBLAS(call)                                                                           \
  do {                                                                                               \
    if (const cublasStatus_t s = (call); s != CUBLAS_STATUS_SUCCESS) {                               \
      std::fprintf(stderr, "%s failed at line %d: status %d\n", #call, __LINE__, int(s));            \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

struct Problem {
  int m, n, k;
};

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  const std::vector<Problem> problems = {{512, 512, 512},    {768, 768, 768},     {1024, 1024, 1024},
                                         {1536, 1536, 1536}, {2048, 2048, 2048},  {4096, 4096, 4096},
                                         {1000, 999, 1001},  {4096, 4096, 1024},  {128, 4096, 4096},
                                         {256, 256, 4096},   {3000, 3000, 3000},  {17, 33, 65},
                                         {128, 1, 300},      {130, 257, 70}};
  const size_t flush_bytes = 256u << 20;
  void* flush = nullptr;
  CHECK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("# sm_count=%d\nsize,kernel,splits,blocks,median_ms,tflops,of_cublas,max_abs_diff,chosen\n", sms);
  for (const Problem& p : problems) {
    const int M = p.m, N = p.n, K = p.k;
    std::vector<float> ha(size_t(M) * K), hb(size_t(K) * N), ref(size_t(M) * N), got(size_t(M) * N);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1, 1);
    for (float& x : ha) x = uniform(rng);
    for (float& x : hb) x = uniform(rng);
    float *a, *b, *c, *r;
    CHECK(cudaMalloc(&a, ha.size() * 4));
    CHECK(cudaMalloc(&b, hb.size() * 4));
    CHECK(cudaMalloc(&c, got.size() * 4));
    CHECK(cudaMalloc(&r, ref.size() * 4));
    CHECK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    auto median_ms = [&](auto launch) {
      std::vector<float> times;
      for (int i = 0; i < 3; ++i) launch();
      for (int i = 0; i < 30; ++i) {
        CHECK(cudaMemsetAsync(flush, i, flush_bytes));
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
      }
      std::sort(times.begin(), times.end());
      return double(times[times.size() / 2]);
    };
    const double flops = 2.0 * M * N * K;
    const float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T.
    const double cublas_ms = median_ms([&] {
      CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, r, N));
    });
    CHECK(cudaMemcpy(ref.data(), r, ref.size() * 4, cudaMemcpyDeviceToHost));
    std::printf("%dx%dx%d,cublas,1,0,%.5f,%.2f,1.000,0,0\n", M, N, K, cublas_ms, flops / cublas_ms / 1e9);
    const lb::MatmulGrid chosen = lb::matmul_grid(M, N, K, sms);
    const int slices = (K + 15) / 16;
    for (int splits = 1; splits <= 16 && splits <= slices; splits *= 2) {  // powers of two: the kernel's slices need them
      if (splits > 1 && chosen.x * chosen.y >= 2u * sms) break;  // a wave of tiles or more: never split
      // More parts than the workspace holds, or more blocks than fit at once: the kernel traps.
      if (splits > 1 && chosen.x * chosen.y * splits > lb::matmul_split_blocks_max(sms)) break;
      CHECK(cudaMemset(c, 0xff, got.size() * 4));  // NaN: a tile left unwritten shows
      const dim3 grid(chosen.x, chosen.y, splits);
      const double ms = median_ms([&] { matmul_tiled<<<grid, LB_MM_THREADS>>>(a, b, c, M, N, K); });
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost));
      double diff = 0;
      for (size_t i = 0; i < got.size(); ++i) diff = std::max(diff, double(std::fabs(got[i] - ref[i])));
      if (std::isnan(diff)) diff = INFINITY;
      std::printf("%dx%dx%d,matmul_tiled,%d,%u,%.5f,%.2f,%.3f,%.2e,%d\n", M, N, K, splits,
                  chosen.x * chosen.y * splits, ms, flops / ms / 1e9, cublas_ms / ms, diff,
                  int(unsigned(splits) == chosen.z));
    }
    std::fflush(stdout);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaFree(r));
  }
  return 0;
}
