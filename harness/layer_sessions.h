// The sessions of the layers in one run (Layer::open_session): each opened on its layer's first
// case and kept until the run ends, so that what a layer pays once (a context, a module) it pays
// once per run, and the costs are reported to the harness rather than kept in globals.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "harness/records.h"
#include "variants/variant.h"

namespace lb {

class LayerSessions {
 public:
  explicit LayerSessions(LayerConfig config) : config_(std::move(config)) {}
  // The layer's session, opened on first use; nullptr for a layer that keeps none. What opening
  // throws reaches the caller (that case fails) and the next case tries again.
  LayerSession* open(const Layer& layer);
  // What the results record about the layer: whether it runs on the GPU, Layer::describe, its
  // session's describe, and the one-time costs of opening the session.
  LayerRecord record(const Layer& layer) const;

 private:
  struct Entry {
    std::unique_ptr<LayerSession> session;
    CostLog costs;
  };
  LayerConfig config_;
  std::map<std::string, Entry> entries_;  // by layer name
};

}  // namespace lb
