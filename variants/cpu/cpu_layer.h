// The CPU baseline: OpenMP over every core, loops the compiler vectorises (-O3 -march=native),
// and OpenBLAS's sgemm for matmul when the build found it. Data stays in host memory, so
// upload/download are plain copies that mirror the GPU layers' flow.
#pragma once
#include <algorithm>
#include <cstring>

#include "variants/variant.h"

namespace lb::cpu {

// Base for CPU variants: the output lives in a host vector; inputs are read where they are.
class HostVariant : public Variant {
 public:
  void allocate(const Shape& shape) override { shape_ = shape; }
  void upload(const HostProblem& problem) override {
    problem_ = &problem;
    output_ = problem.output;
  }
  void download(std::span<float> out) override { std::copy(output_.begin(), output_.end(), out.begin()); }

 protected:
  const float* input(std::size_t i) const { return problem_->inputs[i].data(); }
  Shape shape_;
  const HostProblem* problem_ = nullptr;
  std::vector<float> output_;
};

// Which matmul the cpu layer uses here, e.g. "OpenBLAS 0.3.21 cblas_sgemm (16 threads)".
std::string matmul_backend();

}  // namespace lb::cpu
