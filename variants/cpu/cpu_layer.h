// The CPU baseline: OpenMP over every core, loops the compiler vectorises (-O3 -march=native),
// and OpenBLAS's sgemm for matmul when the build found it (generated/lb_cpu_blas.h says). Data stays in host memory, so
// upload/download are plain copies that mirror the GPU layers' flow.
#pragma once
#include <algorithm>
#include <cstdint>

#include "variants/variant.h"
#include "workloads/problem.h"

namespace lb::cpu {

// Elements per OpenMP chunk in the streaming loops, which use schedule(dynamic, kChunk) rather than
// static shares. On a shared or virtualised host a thread can lose its core in the middle of a
// pass; with static shares every other thread then waits for it at the loop's end, with dynamic
// chunks they take over its work. In a standalone loop on the lent 16-vCPU VM (n = 2^28, 40 passes)
// that made vector_add 91 -> 112 GB/s and reduce 96 -> 109 GB/s; chunks of 64K floats (256 KiB)
// keep the cost of handing them out negligible.
inline constexpr std::int64_t kChunk = std::int64_t{1} << 16;

// Base for CPU variants: the output lives in a host vector; inputs are read where they are. There
// is no device and no stream: the harness's host clock times compute() on the calling thread.
class HostVariant : public Variant {
 public:
  void allocate(const Shape& shape, const Setup&) override { shape_ = shape; }
  void upload(const HostProblem& problem, cudaStream_t) override {
    problem_ = &problem;
    output_.resize(problem.output.size());
    parallel_copy(problem.output, output_);
  }
  void run(cudaStream_t) final { compute(); }
  void download(std::span<float> out, cudaStream_t) override { std::copy(output_.begin(), output_.end(), out.begin()); }

 protected:
  virtual void compute() = 0;  // the work, on every core, done when it returns
  const float* input(std::size_t i) const { return problem_->inputs[i].data(); }
  Shape shape_;
  const HostProblem* problem_ = nullptr;
  HostBuffer output_;
};

// Which matmul the cpu layer uses here, e.g. "OpenBLAS 0.3.21 cblas_sgemm (OpenBLAS 0.3.21 NO_LAPACKE
// ... MAX_THREADS=64, 16 threads)", or "cache-blocked OpenMP loop nest (no CBLAS linked: ...)".
std::string matmul_backend();

// The CBLAS this build linked, as the running process has it: "OpenBLAS 0.3.21" (the version from
// openblas_get_config()), another vendor's name, or "none".
std::string blas_name();

// The results' context.layers.cpu.blas: {"name": "OpenBLAS", "version", "config", "threads",
// "library" (the file cblas_sgemm was loaded from), "linked" (what the build linked)}; for another
// CBLAS {"name", "library", "linked"}; without one {"name": "none", "why"}.
nlohmann::json blas_info();

}  // namespace lb::cpu
