#include "harness/plan.h"

#include <algorithm>

#include "harness/host_info.h"
#include "harness/sizes.h"

namespace lb {
namespace {

std::string name_of(const Workload* w) { return w->name(); }
std::string name_of(const Layer* l) { return l->name; }

// The items named on the command line, in that order without repeats; all of them when none are.
template <class T>
std::vector<const T*> pick(const std::vector<std::string>& names, const std::vector<const T*>& all,
                           const char* kind) {
  if (names.empty()) return all;
  std::vector<const T*> picked;
  for (const auto& name : names) {
    const auto found = std::find_if(all.begin(), all.end(), [&](const T* item) { return name_of(item) == name; });
    if (found == all.end()) {
      std::string known;
      for (const T* item : all) known += (known.empty() ? "" : ", ") + name_of(item);
      throw UsageError("unknown " + std::string(kind) + " '" + name + "' (known: " + known + ")");
    }
    if (std::find(picked.begin(), picked.end(), *found) == picked.end()) picked.push_back(*found);
  }
  return picked;
}

// The sizes of one workload, each checked against this machine's memory.
std::vector<Shape> sizes_for(const Workload& w, const std::vector<std::string>& texts) {
  std::vector<Shape> shapes;
  if (texts.empty()) shapes = w.default_sizes();
  for (const auto& text : texts) shapes.push_back(parse_shape(text, w));
  const double host_memory = host_memory_bytes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const double need = w.host_bytes(shapes[i]);
    if (need <= host_memory) continue;
    const std::string given = texts.empty() ? w.size_label(shapes[i]) : texts[i];
    const bool cube = w.takes_matrix_sizes() && given.find('x') == std::string::npos;
    throw UsageError("size '" + given + "' for " + w.name() + (cube ? " (one number is a cube)" : "") + " needs " +
                     human_bytes(need) + " of host memory; this machine has " + human_bytes(host_memory) +
                     (cube ? "; pick workloads with --workload" : ""));
  }
  return shapes;
}

}  // namespace

bool SuitePlan::any_gpu() const {
  return std::any_of(layers.begin(), layers.end(), [](const Layer* l) { return l->on_gpu; });
}

SuitePlan plan_suite(const SuiteRequest& request) {
  SuitePlan plan;
  plan.workloads = pick(request.workloads, all_workloads(), "workload");
  const std::vector<const Layer*> layers = pick(request.layers, all_layers(), "layer");
  std::vector<std::pair<const Workload*, std::vector<Shape>>> sized;
  for (const Workload* w : plan.workloads) sized.emplace_back(w, sizes_for(*w, request.sizes));

  // Layers that cannot run here are left out, grouped by reason.
  for (const Layer* l : layers) {
    const std::string reason = l->unavailable_reason();
    if (reason.empty()) plan.layers.push_back(l);
    else plan.unavailable[reason].push_back(l->name);
  }

  const bool default_sweep = request.sizes.empty();
  for (const auto& [w, shapes] : sized)
    for (const Shape& s : shapes)
      for (const Layer* l : plan.layers) {
        if (!find_variant(l->name, w->name())) continue;
        const Case c{w, l, s};
        if (default_sweep && l->in_default_sweep && !l->in_default_sweep(*w, s)) plan.left_out.push_back(c.name());
        else plan.cases.push_back(c);
      }
  return plan;
}

void print_plan_notes(const SuitePlan& plan, std::FILE* out) {
  for (const auto& [reason, names] : plan.unavailable) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    std::fprintf(out, "layerbench: GPU layers skipped (%s): %s\n", list.c_str(), reason.c_str());
  }
  for (const auto& name : plan.left_out)
    std::fprintf(out, "layerbench: %s is left out of the default sweep (too slow on this layer); ask for it with --size\n",
                 name.c_str());
}

}  // namespace lb
