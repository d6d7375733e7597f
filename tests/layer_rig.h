// What a test needs to run a variant the way the harness does: the harness's own make_variant()
// and verified_run(), a stream of the harness's kind for GPU layers, the layer sessions and a
// cost log. Tests add no run logic of their own.
#pragma once
#include <optional>

#include "common/stream.h"
#include "harness/case.h"
#include "harness/layer_sessions.h"
#include "harness/prepare.h"
#include "harness/verify.h"

namespace lb {

class LayerRig {
 public:
  // Only for a layer that can run here (a GPU layer needs a GPU for its stream).
  explicit LayerRig(const Layer& layer) : layer_(layer) {
    if (layer.on_gpu) stream_.emplace();
  }
  cudaStream_t stream() const { return stream_ ? stream_->get() : nullptr; }
  // Made and allocated by the harness's make_variant; with a rung, the variant runs the rung's kernel.
  std::unique_ptr<Variant> make(const Workload& w, const Shape& shape, const Rung* rung = nullptr) {
    return make_variant(Case{&w, &layer_, shape, rung}, stream(), sessions_, costs_);
  }
  // The harness's verified run: poisoned output, upload, run, download, check.
  Verdict check(Variant& v, const Workload& w, const HostProblem& p) {
    return verified_run(v, w, p, result_, stream(), layer_.on_gpu).verdict;
  }
  const HostBuffer& result() const { return result_; }

 private:
  const Layer& layer_;
  std::optional<Stream> stream_;
  LayerSessions sessions_{LayerConfig{}};
  CostLog costs_;
  HostBuffer result_;
};

}  // namespace lb
