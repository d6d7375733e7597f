// A sentinel for the state of the CUDA context: the GPU time per kernel of a CUDA graph replay of
// 1000 one-thread kernels, read at the start of a timed GPU run, before the cases of a layer that
// changes the context (Layer::changes_context), and at the end. The figure is steady to 0.1% on an
// idle GPU, and it moves by a fifth when something the process did changed how the driver runs
// later work (docs/methodology.md, "A layer that changes the context"). The results record the
// readings; the summary names a change; a test runs every layer and checks that none but the
// flagged ones moved it.
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "harness/stream_gate.h"

namespace lb {

// One reading (the results' context.context_probe[]).
struct ProbeReading {
  std::string when;  // "start", "before pycuda", "end"
  double us_per_kernel = 0;
};

class ContextProbe {
 public:
  ContextProbe(cudaStream_t stream, StreamGate& gate);
  ~ContextProbe();
  ContextProbe(const ContextProbe&) = delete;
  ContextProbe& operator=(const ContextProbe&) = delete;

  // Measures now and keeps the reading under `when` ("start", "before pycuda", "end").
  void read(const std::string& when);
  // The readings in the order read.
  std::vector<ProbeReading> readings() const { return readings_; }
  // The largest change from the first reading, as a fraction (0.23 for 23% slower); 0 with fewer
  // than two readings. `when` gets the reading's name.
  double largest_change(std::string* when) const;

 private:
  double us_per_kernel();
  cudaStream_t stream_;
  StreamGate& gate_;
  float* out_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::vector<ProbeReading> readings_;
};

}  // namespace lb
