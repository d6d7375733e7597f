#include "harness/layer_sessions.h"

namespace lb {

LayerSession* LayerSessions::open(const Layer& layer) {
  if (!layer.open_session) return nullptr;
  Entry& entry = entries_[layer.name];
  if (!entry.session) entry.session = layer.open_session(config_, entry.costs);
  return entry.session.get();
}

LayerRecord LayerSessions::record(const Layer& layer) const {
  LayerRecord r;
  r.on_gpu = layer.on_gpu;
  r.host_clock = layer.on_gpu && layer.timing == LayerClock::kHostClock;
  if (layer.describe) r.described = layer.describe();
  const auto found = entries_.find(layer.name);
  if (found == entries_.end()) return r;
  if (found->second.session) r.described.update(found->second.session->describe());
  r.one_time_costs = found->second.costs;
  return r;
}

}  // namespace lb
