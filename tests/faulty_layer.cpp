// A layer that gets things wrong on purpose, linked only into layerbench_faulty: vector_add leaves
// its last element unwritten and reduce is off by one. The CLI tests use it to check that failed
// verification is reported, the other cases still run, and the exit code is 1. Its saxpy is right
// but takes 2 s a run: the interrupt tests (test_run_safety.cpp) need a sample that lasts.
#include <chrono>
#include <thread>

#include "variants/cpu/cpu_layer.h"
#include <nlohmann/json.hpp>

namespace lb::faulty {
namespace {

class VectorAddMissingLast final : public cpu::HostVariant {
 public:
  void compute() override {
    for (std::int64_t i = 0; i + 1 < shape_.n; ++i) output_[i] = input(0)[i] + input(1)[i];
  }
};

class ReduceOffByOne final : public cpu::HostVariant {
 public:
  void compute() override {
    double sum = 1.0;
    for (std::int64_t i = 0; i < shape_.n; ++i) sum += input(0)[i];
    output_[0] = static_cast<float>(sum);
  }
};

class SaxpySlow final : public cpu::HostVariant {
 public:
  void compute() override {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    for (std::int64_t i = 0; i < shape_.n; ++i) output_[i] = problem_->alpha * input(0)[i] + output_[i];
  }
};

}  // namespace

LB_REGISTER_LAYER(Layer{
    .name = "faulty",
    .summary = "deliberately wrong results (tests only)",
    .on_gpu = false,
    .rank = 100,
    .unavailable_reason = [] { return std::string(); },
    .describe = [] { return nlohmann::json::object(); },
});
LB_REGISTER_VARIANT("faulty", "vector_add", VectorAddMissingLast);
LB_REGISTER_VARIANT("faulty", "reduce", ReduceOffByOne);
LB_REGISTER_VARIANT("faulty", "saxpy", SaxpySlow);

}  // namespace lb::faulty
