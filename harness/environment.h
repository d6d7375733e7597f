// Step 2 of a run: the measurement environment, opened once before the cases. On a run with GPU
// layers: the device, the stream every GPU case works on, the ceilings measured on it, and what
// the harness does around each sample on that stream (L2 flush, stream gate) and after it (SM
// clock). A CPU-only run has none of these.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "common/stream.h"
#include "harness/context_probe.h"
#include "harness/device_peaks.h"
#include "harness/l2_flush.h"
#include "harness/machine_load.h"
#include "harness/records.h"
#include "harness/sampling.h"
#include "harness/sm_clock.h"
#include "harness/stream_gate.h"
#include "variants/variant.h"

namespace lb {

// How the cases are measured, from the command line.
struct MeasureOptions {
  std::uint64_t seed = 0;  // every case's inputs derive from this and the case's name
  StoppingRule rule;
  bool cold = true;        // flush the L2 before each sample of a GPU layer
  // --check: each case runs once, verified, and is not timed. No ceilings, no L2 flush, no stream
  // gate, no sampling: the mode that compute-sanitizer and cuda-gdb can run.
  bool check_only = false;
  // --host-clock: every GPU layer timed by the host clock (Layer::timing), as a layer that cannot be
  // timed on the harness's stream always is, so that its figures have references timed alike.
  bool host_clock = false;
  // Measure the ceilings (copy bandwidth, SGEMM) on a timed GPU run. Off: a process that takes
  // them from elsewhere (a lab's timing child: its parent has them from a child that loads no
  // student code, lab/child/child_process.h) and saves the second or two.
  bool measure_ceilings = true;
};

struct Environment {
  MeasureOptions options;
  std::optional<Stream> stream;       // the harness's stream: GPU runs only
  std::unique_ptr<L2Flusher> flusher;
  std::unique_ptr<StreamGate> gate;
  // Read at the start, before the cases of a layer that changes the context, and at the end
  // (timed GPU runs only).
  std::unique_ptr<ContextProbe> context_probe;
  std::unique_ptr<SmClock> sm_clock;  // when NVML can read the SM clock
  double throttle_mhz = 0;            // samples under this SM clock are discarded
  // The other processes on the GPU, read around each case's sampling (timed GPU runs, where NVML
  // can list them); else why not.
  std::unique_ptr<GpuProcesses> gpu_processes;
  std::string gpu_processes_unavailable = "no GPU in this run";
  std::optional<DeviceInfo> device;   // query_device_info(); nullopt without a GPU
  std::optional<DevicePeaks> peaks;   // the theoretical peaks a timed rate is checked against (GPU runs)
  Ceilings ceilings;                  // timed GPU runs
  MeasurementSettings measurement;    // the settings above, as the results record them

  // The stream GPU variants get; nullptr on a CPU-only run (CPU variants ignore it).
  cudaStream_t gpu_stream() const { return stream ? stream->get() : nullptr; }
  // What a case of `layer` works on: the harness's stream for a GPU layer, none for a CPU layer.
  cudaStream_t stream_for(const Layer& layer) const { return layer.on_gpu ? gpu_stream() : nullptr; }
  // Whether a GPU layer's samples are timed by the host clock (Layer::timing, --host-clock) instead
  // of device events on the harness's stream.
  bool on_host_clock(const Layer& layer) const {
    return layer.on_gpu && (layer.timing == LayerClock::kHostClock || options.host_clock);
  }
};

// Whether this process runs under compute-sanitizer, which sets NV_SANITIZER_INJECTION_PORT_RANGE_BEGIN
// in the processes it starts. It serialises launches and slows kernels by orders of magnitude, so a
// timed run under it would wait on its own stream gate and take hours over its ceilings.
bool under_compute_sanitizer();

// Measures the ceilings when `with_gpu` (saying so on stderr: it takes a second or two), unless
// options.check_only (then a GPU run gets the device and the stream, and nothing else) or not
// options.measure_ceilings.
std::unique_ptr<Environment> open_environment(bool with_gpu, const MeasureOptions& options);

}  // namespace lb
