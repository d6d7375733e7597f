// No layer changes another layer's figures. A layer whose work changes the CUDA context for later
// work (Layer::changes_context: pycuda's cross-stream event waits slow every later graph replay)
// runs after all the others; the context probe (harness/context_probe.h) is read at the start and
// before such a layer, and a run of every layer shows whether the others left it as they found it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/gpu.h"
#include "harness/plan.h"
#include "variants/cpu/cpu_layer.h"

namespace lb {
namespace {

namespace fs = std::filesystem;

class VectorAdd final : public cpu::HostVariant {
  void compute() override {
    for (std::int64_t i = 0; i < shape_.n; ++i) output_[i] = input(0)[i] + input(1)[i];
  }
};

// A layer of this test binary only, flagged as one that changes the context.
const bool kRegistered = [] {
  register_layer(Layer{.name = "test-context-changer",
                       .summary = "a CPU layer flagged as changing the context",
                       .rank = 1,
                       .unavailable_reason = [] { return std::string(); },
                       .describe = [] { return nlohmann::json::object(); },
                       .changes_context = "flagged by the test"});
  return register_variant("test-context-changer", "vector_add", [] { return std::make_unique<VectorAdd>(); });
}();

TEST(Isolation, LayersThatChangeTheContextRunAfterEveryOtherLayer) {
  ASSERT_TRUE(kRegistered);
  const SuitePlan plan = plan_suite({.workloads = {"vector_add", "saxpy"}, .layers = {"test-context-changer", "cpu"},
                                     .sizes = {"1000", "2000"}});
  std::vector<std::string> names;
  for (const Case& c : plan.cases) names.push_back(c.name());
  // The cpu layer's cases in the usual order (workload, then size), then the flagged layer's.
  EXPECT_EQ(names, (std::vector<std::string>{"vector_add/cpu/1000", "vector_add/cpu/2000", "saxpy/cpu/1000",
                                             "saxpy/cpu/2000", "vector_add/test-context-changer/1000",
                                             "vector_add/test-context-changer/2000"}));
}

// Every layer available here, each case with 60 samples or more. What a flagged layer does to the
// context is not asserted: pycuda's waits changed it in the default suite (its results' context_probe),
// not in this short run, whose cases are small.
TEST(Isolation, NoLayerButTheFlaggedOnesMovesTheContextProbe) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "needs a CUDA device: " << why;
  const fs::path dir = fs::temp_directory_path() / ("layerbench_isolation_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path out = dir / "results.json", log = dir / "log.txt";
  const std::string command = std::string(LB_EXE) + " run -w saxpy,launch_async -s 1000 --min-samples 60 --max-time 0.5 -o " +
                              out.string() + " > " + log.string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << std::ifstream(log).rdbuf();
  const nlohmann::json results = nlohmann::json::parse(std::ifstream(out));
  fs::remove_all(dir);

  const nlohmann::json& readings = results["context"]["context_probe"];
  ASSERT_TRUE(readings.is_array() && readings.size() >= 2) << readings.dump();
  ASSERT_EQ(readings[0]["when"], "start");
  const double start = readings[0]["us_per_kernel"];
  // Up to the first flagged layer (or the end, when none ran) only unflagged layers had run.
  const nlohmann::json& before_flagged = readings[1];
  const double change = before_flagged["us_per_kernel"].get<double>() / start - 1.0;
  EXPECT_LT(std::abs(change), 0.03) << "the context probe moved by " << 100 * change << "% by "
                                    << before_flagged["when"] << ": a layer that ran before it changes the "
                                    << "context (flag it with Layer::changes_context): " << readings.dump();
}

}  // namespace
}  // namespace lb
