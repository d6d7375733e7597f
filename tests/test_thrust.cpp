// What is specific to the thrust and thrust-omp layers; their results against the reference are
// checked with every other layer's in test_layers.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "common/gpu.h"
#include "tests/layer_rig.h"
#include "workloads/workload.h"

namespace lb {
namespace {

TEST(ThrustLayers, BothRegisteredWithAllFiveWorkloads) {
  for (const char* name : {"thrust", "thrust-omp"}) {
    SCOPED_TRACE(name);
    ASSERT_NE(find_layer(name), nullptr);
    for (const char* w : {"vector_add", "saxpy", "reduce", "matmul", "transpose"})
      EXPECT_NE(find_variant(name, w), nullptr) << w;
  }
  EXPECT_TRUE(find_layer("thrust")->on_gpu);
  EXPECT_FALSE(find_layer("thrust-omp")->on_gpu);
}

// thrust-omp runs on the CPU, so it is available on every machine, GPU or not.
TEST(ThrustLayers, OmpIsAlwaysAvailable) { EXPECT_EQ(find_layer("thrust-omp")->unavailable_reason(), ""); }

TEST(ThrustLayers, CudaBackendIsAvailableExactlyWhenAGpuIs) {
  EXPECT_EQ(find_layer("thrust")->unavailable_reason(), gpu_unavailable_reason());
}

// The two compilations of the same source must stay apart in one binary: each layer describes
// its own backend (a merged symbol would make both say the same).
TEST(ThrustLayers, EachCompilationDescribesItsOwnBackend) {
  const nlohmann::json cuda = find_layer("thrust")->describe();  // no GPU needed to describe
  const nlohmann::json omp = find_layer("thrust-omp")->describe();
  EXPECT_NE(cuda.at("backend").get<std::string>().find("CUDA"), std::string::npos) << cuda.dump();
  EXPECT_EQ(omp.at("backend"), "OpenMP") << omp.dump();
  EXPECT_GE(omp.at("threads").get<int>(), 1);
  EXPECT_EQ(omp.at("thrust_version"), cuda.at("thrust_version"));
}

// thrust::reduce returns its sum to the host; download() must report the sum of the latest run(),
// never a value left over from before the upload.
TEST(ThrustLayers, OmpReduceReportsOnlyWhatRunComputed) {
  const Workload* reduce = find_workload("reduce");
  HostProblem p = reduce->make_problem({1, 1000, 1}, 11);
  LayerRig rig(*find_layer("thrust-omp"));
  auto v = rig.make(*reduce, p.shape);
  float got = 0.0f;
  v->upload(p, rig.stream());
  v->download({&got, 1}, rig.stream());
  EXPECT_TRUE(std::isnan(got)) << "before run(), download() should give the poisoned output";
  v->run(rig.stream());
  v->download({&got, 1}, rig.stream());
  EXPECT_TRUE(reduce->verify(p, {&got, 1}).passed);
  // New inputs, same buffers: the next run sums them, not the old ones.
  p.inputs[0].assign(p.inputs[0].size(), 0.5f);
  v->upload(p, rig.stream());
  v->run(rig.stream());
  v->download({&got, 1}, rig.stream());
  EXPECT_EQ(got, 500.0f);
}

}  // namespace
}  // namespace lb
