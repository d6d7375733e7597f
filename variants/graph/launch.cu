// The `graph` layer: the runtime API's CUDA graphs, for launch overhead. allocate() records n
// launches into a graph once (stream capture: the launches are recorded, not run) and instantiates
// it; run() replays all n with one cudaGraphLaunch. The CPU pays one launch instead of n, and the
// GPU receives the whole chain at once. launch_sync then waits once for the whole replay.
// Capture and instantiation are one-time costs, recorded apart from the samples.
#include <chrono>

#include "harness/device_info.h"
#include "harness/elapsed.h"
#include "variants/runtime/runtime_layer.h"

namespace lb::graph {
namespace {

nlohmann::json g_build_costs = nlohmann::json::array();  // one-time costs, printed by the harness

template <bool kWaitAfterReplay>
class GraphLaunch final : public Variant {
 public:
  ~GraphLaunch() override {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
    if (capture_) cudaStreamDestroy(capture_);
  }
  void allocate(const Shape& s) override {
    out_ = runtime::DeviceBuffer<float>(1);
    const auto t0 = std::chrono::steady_clock::now();
    // Capture needs a stream of its own: the legacy default stream cannot be captured.
    LB_CUDA_CHECK(cudaStreamCreateWithFlags(&capture_, cudaStreamNonBlocking));
    LB_CUDA_CHECK(cudaStreamBeginCapture(capture_, cudaStreamCaptureModeThreadLocal));
    for (long long i = 0; i < s.n; ++i) runtime::enqueue_launch_probe(out_.get(), float(i + 1), capture_);
    LB_CUDA_CHECK(cudaStreamEndCapture(capture_, &graph_));
    LB_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    const double ms = ms_since(t0);
    g_build_costs.push_back({{"what", std::string(kWaitAfterReplay ? "launch_sync" : "launch_async") +
                                          ": capture + instantiate " + std::to_string(s.n) + " launches"},
                             {"ms", ms}});
  }
  void upload(const HostProblem& p) override { out_.upload(p.output); }
  void run() override {
    LB_CUDA_CHECK(cudaGraphLaunch(exec_, 0));  // replayed on the legacy default stream
    if (kWaitAfterReplay) LB_CUDA_CHECK(cudaStreamSynchronize(0));
  }
  void download(std::span<float> out) override { out_.download(out); }
  bool run_waits() const override { return kWaitAfterReplay; }

 private:
  runtime::DeviceBuffer<float> out_;
  cudaStream_t capture_ = nullptr;
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
    .unavailable_reason = [] { return gpu_unavailable_reason(); },
    .make_clock = make_default_stream_event_clock,
    .describe = [] { return nlohmann::json{{"one_time_costs", g_build_costs}}; },
});
LB_REGISTER_VARIANT("graph", "launch_async", LaunchAsync);
LB_REGISTER_VARIANT("graph", "launch_sync", LaunchSync);

}  // namespace lb::graph
