// The one interface every access layer implements, once per workload.
//
// The harness owns timing and verification; a variant only does what its layer does:
//   allocate  - reserve device (or host) memory and do one-time work such as compiling kernels
//   upload    - copy the inputs and the output's starting contents (NaN poison, or y for saxpy)
//   run       - the timed work: GPU layers enqueue it on their stream and return; CPU layers compute
//   download  - copy the output back to the host, waiting for run() to finish
// A GPU variant whose run() waits for the device before returning says so (run_waits()): the
// harness then does not hold the stream back while run() enqueues (see StreamGate).
#pragma once
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace lb {

class Variant {
 public:
  virtual ~Variant() = default;
  virtual void allocate(const Shape& shape) = 0;
  virtual void upload(const HostProblem& problem) = 0;
  virtual void run() = 0;
  virtual void download(std::span<float> out) = 0;
  virtual bool run_waits() const { return false; }
};

// Times one run() of a layer: device events for GPU layers, a host clock for CPU layers.
// stop() only marks the end; elapsed_ms() waits for the work between the two marks to finish, so
// the harness can let held-back device work go between them.
class SampleClock {
 public:
  virtual ~SampleClock() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual double elapsed_ms() = 0;
  double stop_ms() {
    stop();
    return elapsed_ms();
  }
};

// Clocks that layers share: a host steady clock (CPU layers) and a cudaEvent pair recorded on the
// legacy default stream (GPU layers that launch there).
std::unique_ptr<SampleClock> make_host_clock();
std::unique_ptr<SampleClock> make_default_stream_event_clock();

// Command-line settings followed by layers that compile kernels at run time.
struct RuntimeCompileSettings {
  bool cache_enabled = true;
  std::string cache_dir;  // empty: the layer's default location
};
RuntimeCompileSettings& runtime_compile_settings();

struct Layer {
  std::string name;
  std::string summary;
  bool on_gpu = false;
  int rank = 0;                                           // orders listings
  std::function<std::string()> unavailable_reason;        // empty string when usable here
  std::function<std::unique_ptr<SampleClock>()> make_clock;
  // What the results should record about the layer, asked after the cases ran. A list under
  // "one_time_costs" ({"what", "ms"} each) is also printed in the console summary.
  std::function<nlohmann::json()> describe;
  // Optional: false leaves a size out of the default sweep (asked for with --size, it still runs),
  // for layers that would take minutes there.
  std::function<bool(const Workload&, const Shape&)> in_default_sweep;
};

using VariantFactory = std::function<std::unique_ptr<Variant>()>;

bool register_layer(Layer layer);
bool register_variant(const std::string& layer, const std::string& workload, VariantFactory make);
std::vector<const Layer*> all_layers();
const Layer* find_layer(const std::string& name);  // nullptr when unknown
// nullptr when the layer has no variant for the workload.
const VariantFactory* find_variant(const std::string& layer, const std::string& workload);

}  // namespace lb

#define LB_REGISTER_LAYER(...) \
  static const bool LB_CONCAT(lb_layer_registered_, __LINE__) = ::lb::register_layer(__VA_ARGS__)
#define LB_REGISTER_VARIANT(layer, workload, Type)                          \
  static const bool LB_CONCAT(lb_variant_registered_, __LINE__) =           \
      ::lb::register_variant(layer, workload, [] { return std::unique_ptr<::lb::Variant>(new Type()); })
