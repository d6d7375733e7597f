// The one interface every access layer implements, once per workload, and what the harness hands
// it. The harness owns the stream, the timing, the verification and the record; a variant only
// does what its layer does:
//   allocate  - reserve device (or host) memory and do one-time work such as compiling kernels,
//               reporting what that cost to setup.costs
//   upload    - copy the inputs and the output's starting contents (NaN poison, or y for saxpy)
//   run       - the timed work: GPU layers enqueue it on `stream` and return; CPU layers compute
//   download  - copy the output back to the host, waiting for run() to finish
// GPU variants do all their device work on the stream they are given (the harness's, which its
// events, L2 flush and stream gate use too), never on the legacy default stream. A GPU variant
// whose run() waits for the device before returning says so (run_waits()): the harness then does
// not hold the stream back while run() enqueues (see harness/stream_gate.h).
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <map>
#include <memory>
// The declaration of nlohmann::json only: the full header is ~130k lines, and every layer file
// (nvcc parses each twice) includes this one; files that build JSON include it themselves.
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "variants/one_time_cost.h"
#include "workloads/workload.h"

namespace lb {

struct Rung;            // workloads/ladder.h
class FolderWorkload;   // workloads/folder/folder_workload.h

// Command-line settings that layers follow, handed to Layer::open_session.
struct LayerConfig {
  bool kernel_cache_enabled = true;  // --no-kernel-cache turns it off
  std::string kernel_cache_dir;      // --kernel-cache; empty: the layer's default location
  // --kernel-text NAME=FILE (run, driver layer only): a text to compile instead of the built-in
  // workloads/NAME/kernels.cu, read when the command line was checked. By NAME.
  struct KernelText {
    std::string file;  // as given on the command line
    std::string text;
  };
  std::map<std::string, KernelText> kernel_texts;
};

// What a layer keeps across its cases in one run (a retained context, loaded modules): opened by
// the harness on the layer's first case, closed after the run. Layers that keep nothing have none.
class LayerSession {
 public:
  virtual ~LayerSession() = default;
  // What the results record about this run of the layer, beside Layer::describe.
  virtual nlohmann::json describe() const;  // an empty object unless the session says more
};

// What allocate() receives.
struct Setup {
  cudaStream_t stream = nullptr;     // the harness's stream (GPU layers; nullptr for CPU layers)
  CostLog* costs = nullptr;          // this case's one-time costs
  LayerSession* session = nullptr;   // the layer's session, when Layer::open_session made one
  const Rung* rung = nullptr;        // a ladder rung to run instead of the layer's own kernel
                                     // (only for layers with Layer::runs_rungs; null: their own)

  // The session as the layer's own type; a layer that registered no such session is a bug.
  template <class S>
  S& session_as() const {
    if (auto* s = dynamic_cast<S*>(session)) return *s;
    throw std::logic_error(std::string("variant expected a layer session of type ") + typeid(S).name());
  }
};

class Variant {
 public:
  virtual ~Variant() = default;
  virtual void allocate(const Shape& shape, const Setup& setup) = 0;
  virtual void upload(const HostProblem& problem, cudaStream_t stream) = 0;
  virtual void run(cudaStream_t stream) = 0;
  virtual void download(std::span<float> out, cudaStream_t stream) = 0;
  virtual bool run_waits() const { return false; }
};

// How the harness times a GPU layer's run(). Device events on the harness's stream, unless the
// layer's library enqueues its work on streams of its own that no event of ours can bracket (JAX:
// XLA picks its streams): then the host clock, from after the harness's stream has drained to the
// return of a run() that waits for its work (run_waits()): context.layers.<layer>.clock "host", and
// each case's timed_by "host".
// `run --host-clock` times every GPU layer that way, so that such a layer has a reference beside it.
enum class LayerClock { kDeviceEvents, kHostClock };

struct Layer {
  std::string name;
  std::string summary;
  bool on_gpu = false;  // device events time it, on the harness's stream; else the host clock
  LayerClock timing = LayerClock::kDeviceEvents;  // a GPU layer's clock (CPU layers: always the host clock)
  int rank = 0;         // orders listings
  std::function<std::string()> unavailable_reason;  // empty string when usable here
  // What the results record about the layer whatever it ran: versions, compiler, threads.
  std::function<nlohmann::json()> describe;
  // Optional: opens the layer's session for one run; one-time costs of opening it go to `costs`.
  std::function<std::unique_ptr<LayerSession>(const LayerConfig& config, CostLog& costs)> open_session;
  // Optional: false leaves a size out of the default sweep (asked for with --size, it still runs),
  // for layers that would take minutes there.
  std::function<bool(const Workload&, const Shape&)> in_default_sweep;
  // Workloads the layer has no natural way to express, each with why (`list` shows them).
  std::map<std::string, std::string> not_provided;
  // Runs ladder rungs (workloads/ladder.h) when Setup::rung is set: its matmul and reduce variants
  // launch the rung's kernel with the rung's launch shape (variants/ladder_launch.h).
  bool runs_rungs = false;
  // The kernel texts the layer compiles at run time and lets `run --kernel-text NAME=FILE` replace
  // (LayerConfig::kernel_texts), by NAME: the driver layer's workloads/NAME/kernels.cu.
  std::vector<std::string> kernel_texts;
  // Non-empty: how this layer's work changes the CUDA context for all later work in the process,
  // as measured (docs/methodology.md, "A layer that changes the context"). Its cases run after
  // every other layer's, so that no other layer's figures carry the change.
  std::string changes_context;
  // Its variant of a workload is the vendor library's routine (WorkloadDescriptor::vendor): the top
  // line `layerbench ladder` measures the rungs against, where the layer has that workload.
  bool ladder_top_line = false;
  // Runs a workload folder's kernel text (`run --workload-dir`): this layer's variant of such a
  // workload, compiling the folder's kernels.cu its own way. Empty: the layer runs no folder's text.
  std::function<std::unique_ptr<Variant>(const FolderWorkload&)> folder_variant;
};

using VariantFactory = std::function<std::unique_ptr<Variant>()>;

bool register_layer(Layer layer);
bool register_variant(const std::string& layer, const std::string& workload, VariantFactory make);
std::vector<const Layer*> all_layers();
const Layer* find_layer(const std::string& name);  // nullptr when unknown
// nullptr when the layer has no variant for the workload.
const VariantFactory* find_variant(const std::string& layer, const std::string& workload);

}  // namespace lb

// __COUNTER__, not __LINE__: files compiled as one unit (cmake/UnitySource.cmake) may register on
// the same line.
#define LB_REGISTER_LAYER(...) \
  static const bool LB_CONCAT(lb_layer_registered_, __COUNTER__) = ::lb::register_layer(__VA_ARGS__)
#define LB_REGISTER_VARIANT(layer, workload, Type)                          \
  static const bool LB_CONCAT(lb_variant_registered_, __COUNTER__) =        \
      ::lb::register_variant(layer, workload, [] { return std::unique_ptr<::lb::Variant>(new Type()); })
