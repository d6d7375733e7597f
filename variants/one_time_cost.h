// What a layer paid once, before its first result, and what kind of cost it was. Layers add to
// the log they are handed; the harness records it, and the console and the report add it up per
// layer and kind.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace lb {

// The kinds a reader compares layers by. A first run (lazy module loading, first touches) is not
// in the log: each case records its own first_run_ms.
enum class CostKind {
  kImport,   // the Python interpreter's start and the imports of a layer's modules
  kContext,  // creating or retaining the CUDA context
  kCompile,  // a run-time compile (NVRTC, nvcc, Numba, CuPy, torch.compile, Triton, XLA), with the load where the tool does both
  kAutotune, // compiling and timing candidate configurations to keep the fastest (Triton's @autotune)
  kLoad,     // loading compiled code into the context (cuModuleLoadData)
  kSetup,    // anything else once: a graph capture, CUB's temporary storage
};
const char* to_string(CostKind kind);
// The kind of a cost from how its layer names it. The names are the layers' own words (a Python
// layer's come through its report() call), so the kind is read from them in this one place; a
// name no rule matches is setup. tests/test_one_time_cost.cpp holds every name the layers use.
CostKind cost_kind(std::string_view what);

struct OneTimeCost {
  std::string what;
  double ms = 0;
  CostKind kind = CostKind::kSetup;
};

class CostLog {
 public:
  void add(std::string what, double ms) {
    const CostKind kind = cost_kind(what);
    entries_.push_back({std::move(what), ms, kind});
  }
  const std::vector<OneTimeCost>& entries() const { return entries_; }
  // [{"what", "ms", "kind"}, ...], as the results record one_time_costs.
  nlohmann::json to_json() const;
  // What the layer's library said about the case that is no cost: a performance warning (Numba's
  // "Grid size 1 will likely result in GPU under-utilization ..."), each distinct one once. The
  // results keep them (benchmarks[].notes); the console does not print them.
  void note(const std::string& text) {
    for (const std::string& n : notes_)
      if (n == text) return;
    notes_.push_back(text);
  }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::vector<OneTimeCost> entries_;
  std::vector<std::string> notes_;
};

}  // namespace lb
