#include "harness/layer_sessions.h"

namespace lb {

LayerSession* LayerSessions::open(const Layer& layer) {
  if (!layer.open_session) return nullptr;
  Entry& entry = entries_[layer.name];
  if (!entry.session) entry.session = layer.open_session(config_, entry.costs);
  return entry.session.get();
}

nlohmann::json LayerSessions::record(const Layer& layer) const {
  nlohmann::json j = layer.describe ? layer.describe() : nlohmann::json::object();
  j["on_gpu"] = layer.on_gpu;
  const auto found = entries_.find(layer.name);
  if (found == entries_.end()) return j;
  if (found->second.session) j.update(found->second.session->describe());
  if (!found->second.costs.entries().empty()) j["one_time_costs"] = found->second.costs.to_json();
  return j;
}

}  // namespace lb
