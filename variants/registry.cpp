#include <algorithm>
#include <map>

#include "variants/variant.h"

#include <nlohmann/json.hpp>

namespace lb {

nlohmann::json LayerSession::describe() const { return nlohmann::json::object(); }

namespace {
std::vector<std::unique_ptr<Layer>>& layers() {
  static std::vector<std::unique_ptr<Layer>> registry;
  return registry;
}
std::map<std::pair<std::string, std::string>, VariantFactory>& variants() {
  static std::map<std::pair<std::string, std::string>, VariantFactory> registry;
  return registry;
}
}  // namespace

bool register_layer(Layer layer) {
  auto& all = layers();
  all.push_back(std::make_unique<Layer>(std::move(layer)));
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a->rank < b->rank; });
  return true;
}

bool register_variant(const std::string& layer, const std::string& workload, VariantFactory make) {
  variants()[{layer, workload}] = std::move(make);
  return true;
}

std::vector<const Layer*> all_layers() {
  std::vector<const Layer*> view;
  for (const auto& l : layers()) view.push_back(l.get());
  return view;
}

const Layer* find_layer(const std::string& name) {
  for (const auto& l : layers())
    if (l->name == name) return l.get();
  return nullptr;
}

const VariantFactory* find_variant(const std::string& layer, const std::string& workload) {
  const auto it = variants().find({layer, workload});
  return it == variants().end() ? nullptr : &it->second;
}

}  // namespace lb
