#include "harness/context_probe.h"

#include <algorithm>
#include <cmath>

#include "common/cuda_check.h"
#include "common/median.h"
#include "common/stream.h"

namespace lb {
namespace {

constexpr int kKernels = 1000;  // per replay: the replay's fixed costs are then under 1% of it
constexpr int kReplays = 25;    // per reading, after one warm-up

__global__ void probe_store(float* out, float value) { out[0] = value; }

}  // namespace

ContextProbe::ContextProbe(cudaStream_t stream, StreamGate& gate) : stream_(stream), gate_(gate) {
  LB_CUDA_CHECK(cudaMalloc(&out_, sizeof(float)));
  LB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kKernels; ++i) {
    probe_store<<<1, 1, 0, stream_>>>(out_, float(i));
    LB_CHECK_LAUNCH();
  }
  LB_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
  LB_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
}

ContextProbe::~ContextProbe() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
  if (out_) cudaFree(out_);
}

// Behind the stream gate, so that the host's enqueueing of the replay is outside the events: what
// is timed is the GPU running the 1000 kernels back to back.
double ContextProbe::us_per_kernel() {
  Event start, stop;
  std::vector<double> us;
  for (int i = 0; i <= kReplays; ++i) {
    gate_.hold(stream_);
    start.record(stream_);
    LB_CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
    stop.record(stream_);
    gate_.release();
    const double ms = Event::elapsed_ms(start, stop);
    gate_.timed_out();
    if (i > 0) us.push_back(ms * 1e3 / kKernels);
  }
  return median(us);
}

void ContextProbe::read(const std::string& when) { readings_.push_back({when, us_per_kernel()}); }

double ContextProbe::largest_change(std::string* when) const {
  double largest = 0;
  for (std::size_t i = 1; i < readings_.size(); ++i) {
    const double change = readings_[i].us_per_kernel / readings_[0].us_per_kernel - 1.0;
    if (std::abs(change) > std::abs(largest)) {
      largest = change;
      if (when) *when = readings_[i].when;
    }
  }
  return largest;
}

}  // namespace lb
