// The `graph` layer: the runtime API's CUDA graphs, for launch overhead. allocate() records n
// launches into a graph once (stream capture: the launches are recorded, not run) and instantiates
// it; run() replays all n with one cudaGraphLaunch. The CPU pays one launch instead of n, and the
// GPU receives the whole chain at once. launch_sync then waits once for the whole replay.
// Capture and instantiation are one-time costs, reported to the harness apart from the samples.
#include <chrono>
#include <string>

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/elapsed.h"
#include "common/gpu.h"
#include "variants/variant.h"
#include "workloads/launch/kernels.h"
#include <nlohmann/json.hpp>

namespace lb::graph {
namespace {

template <bool kWaitAfterReplay>
class GraphLaunch final : public Variant {
 public:
  ~GraphLaunch() override {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  void allocate(const Shape& s, const Setup& setup) override {
    out_ = DeviceBuffer<float>(1);
    const auto t0 = std::chrono::steady_clock::now();
    // The harness's stream can be captured (the legacy default stream could not): between Begin
    // and End the launches on it are recorded into graph_ instead of running.
    LB_CUDA_CHECK(cudaStreamBeginCapture(setup.stream, cudaStreamCaptureModeThreadLocal));
    for (long long i = 0; i < s.n; ++i) {
      launch_probe<<<1, 1, 0, setup.stream>>>(out_.get(), float(i + 1));
      LB_CHECK_LAUNCH();
    }
    LB_CUDA_CHECK(cudaStreamEndCapture(setup.stream, &graph_));
    LB_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    setup.costs->add("capture + instantiate " + std::to_string(s.n) + " launches", ms_since(t0));
  }
  void upload(const HostProblem& p, cudaStream_t stream) override { out_.upload(p.output, stream); }
  void run(cudaStream_t stream) override {
    LB_CUDA_CHECK(cudaGraphLaunch(exec_, stream));
    if (kWaitAfterReplay) LB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void download(std::span<float> out, cudaStream_t stream) override { out_.download(out, stream); }
  bool run_waits() const override { return kWaitAfterReplay; }

 private:
  DeviceBuffer<float> out_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};
using LaunchAsync = GraphLaunch<false>;
using LaunchSync = GraphLaunch<true>;

}  // namespace

LB_REGISTER_LAYER(Layer{
    .name = "graph",
    .summary = "CUDA graphs (runtime API): n launches captured once, replayed by one call (launch workloads only)",
    .on_gpu = true,
    .rank = 15,
    .unavailable_reason = gpu_unavailable_reason,
    .describe = [] { return nlohmann::json::object(); },
});
LB_REGISTER_VARIANT("graph", "launch_async", LaunchAsync);
LB_REGISTER_VARIANT("graph", "launch_sync", LaunchSync);

}  // namespace lb::graph
