// Step 3a of a case: its inputs, its variant (made, allocated, warmed up) and its verified run.
#pragma once
#include <cstdint>
#include <memory>

#include "harness/case.h"
#include "harness/environment.h"
#include "harness/layer_sessions.h"

namespace lb {

// Host memory shared by consecutive cases: the problem of the current (workload, size) and the
// buffer results are downloaded into, kept so that each is allocated and first touched once.
// Inputs belong to a (workload, size), not to a layer: every layer of one run gets the same
// inputs, drawn once (at n = 2^28 that is gigabytes).
class CaseInputs {
 public:
  const HostProblem& problem_for(const Case& c, std::uint64_t suite_seed);
  HostBuffer& result() { return result_; }

 private:
  const Workload* workload_ = nullptr;
  Shape shape_;
  std::unique_ptr<const HostProblem> problem_;
  HostBuffer result_;
};

// A variant of the case's layer, made by its registered factory and allocated with what the
// harness hands it: the stream, the layer's session, the case's cost log.
std::unique_ptr<Variant> make_variant(const Case& c, cudaStream_t stream, LayerSessions& sessions, CostLog& costs);

// Makes and allocates the variant (allocate_ms), runs it once (first_run_ms: lazy loading and
// first touches, kept out of every other figure; not in a check), then does the verified run
// (end_to_end_ms, verdict). Sets r.status: ok, failed (a wrong result or an error, with the message) or skipped
// (did not fit in memory). Returns the variant, ready for timing; null unless ok. Never throws.
std::unique_ptr<Variant> prepare_case(CaseResult& r, CaseInputs& inputs, const Environment& env,
                                      LayerSessions& sessions);

}  // namespace lb
