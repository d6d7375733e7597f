#include "harness/plan.h"

#include <algorithm>
#include <cstdio>

#include "common/gpu.h"
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
      throw UsageError("unknown " + std::string(kind) + " '" + one_line(name) + "' (known: " + known + ")");
    }
    if (std::find(picked.begin(), picked.end(), *found) == picked.end()) picked.push_back(*found);
  }
  return picked;
}

template <class T>
void add_once(std::vector<T>& list, T item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

std::string names_of(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + one_line(n);
  return text;
}

// The layers that run rungs, best first: "runtime, driver".
std::vector<const Layer*> rung_capable_layers() {
  std::vector<const Layer*> found;
  for (const Layer* l : all_layers())
    if (l->runs_rungs) found.push_back(l);
  return found;
}

std::string rung_capable_names() {
  std::vector<std::string> names;
  for (const Layer* l : rung_capable_layers()) names.push_back(l->name);
  return names.empty() ? "none" : names_of(names);
}

bool is_matrix_text(const std::string& text) { return text.find('x') != std::string::npos; }

// UsageError unless `text` is a size of some workload (one number, MxN or MxNxK): for the sizes a
// workload does not take, which must still be sizes. Checked as the first registered workload
// written with as many dimensions reads it; none such: parsed as a count, which names the value.
void check_is_a_size(const std::string& text) {
  for (const Workload* w : all_workloads())
    if (dimension_count(w->size_form()) == dimensions_written(text)) return (void)parse_shape(text, *w);
  (void)parse_count(text);
}

// `text` is written in `w`'s own form: "4x8" for a matrix, "4x8x2" for a product.
bool written_as(const Workload& w, const std::string& text) {
  return is_matrix_text(text) && dimensions_written(text) == dimension_count(w.size_form());
}

}  // namespace

std::vector<PlannedSize> sizes_for(const Workload& w, const std::vector<std::string>& texts, bool named,
                                   bool matrix_given, double host_memory, double device_memory) {
  std::vector<PlannedSize> sizes;
  const auto add = [&](Shape shape, std::string why, bool cube) {
    if (why.empty() && device_memory > 0 && w.device_bytes(shape) > device_memory)
      why = "does not fit in device memory: its buffers need " + human_bytes(w.device_bytes(shape)) + "; the GPU has " +
            human_bytes(device_memory);
    if (why.empty() && w.host_bytes(shape) > host_memory)
      why = "does not fit in host memory: needs " + human_bytes(w.host_bytes(shape)) + "; this machine has " +
            human_bytes(host_memory) +
            (cube ? std::string(" (one number is a ") + (w.size_form() == SizeForm::kMatrix ? "square" : "cube") +
                        " for " + w.name() + "; " + to_string(w.size_form()) + " gives it its own size)"
                  : "");
    sizes.push_back({shape, std::move(why)});
  };
  // Without -w, a launch-overhead workload keeps its count of launches: a size in the list is a
  // problem size, and as many launches would only make its cases long (each text still checked).
  const bool defaults = texts.empty() || (!named && w.figure() == Figure::kLaunchTime);
  if (defaults) {
    for (const auto& text : texts) check_is_a_size(text);
    for (const Shape& s : w.default_sizes()) add(s, "", false);
    return sizes;
  }
  for (const auto& text : texts) {
    if (is_matrix_text(text)) {
      if (!written_as(w, text) && !named) {
        check_is_a_size(text);  // not this workload's kind
        continue;
      }
      add(parse_shape(text, w), "", false);  // UsageError: not its form, for a workload named
      continue;
    }
    const std::int64_t n = parse_count(text);  // UsageError: not a size
    if (w.size_form() == SizeForm::kCount) {
      add(Shape{1, n, 1}, "", false);
    } else if (named || !matrix_given) {
      const bool square = w.size_form() == SizeForm::kMatrix;
      add(square ? Shape{n, n, 1} : Shape{n, n, n},
          n > kMaxMatrixDimension ? std::string("does not fit: a ") + (square ? "square" : "cube") + " of side " +
                                        std::to_string(n) +
                                        " is above 2^31 - 1, the largest matrix dimension the layers take"
                                  : "",
          true);
    }
  }
  return sizes;
}

std::vector<const Rung*> rungs_named(const std::string& spec) {
  const auto slash = spec.find('/');
  if (spec == "all" && !ladder_rungs().empty()) return ladder_rungs();
  if (slash != std::string::npos && spec.substr(slash + 1) == "all") {
    if (auto found = ladder_rungs(spec.substr(0, slash)); !found.empty()) return found;
  } else if (const Rung* rung = find_rung(spec)) {
    return {rung};
  }
  std::vector<std::string> known;
  std::string last_workload;
  for (const Rung* r : ladder_rungs()) {
    if (r->workload != last_workload && !last_workload.empty()) known.push_back(last_workload + "/all");
    known.push_back(r->id());
    last_workload = r->workload;
  }
  if (!last_workload.empty()) known.insert(known.end(), {last_workload + "/all", "all"});
  throw UsageError("unknown rung '" + one_line(spec) + "' (known: " + (known.empty() ? "none registered" : names_of(known)) + ")");
}

bool SuitePlan::any_gpu() const {
  return std::any_of(layers.begin(), layers.end(), [](const Layer* l) { return l->on_gpu; });
}

SuitePlan plan_suite(const SuiteRequest& request) {
  SuitePlan plan;
  for (const auto& spec : request.rungs)
    for (const Rung* r : rungs_named(spec)) add_once(plan.rungs, r);
  std::stable_sort(plan.rungs.begin(), plan.rungs.end(), [](const Rung* a, const Rung* b) {
    return a->workload != b->workload ? a->workload < b->workload : a->number < b->number;
  });
  // With rungs and no workload named, only rung cases: no layer's own cases.
  const bool rungs_only = !plan.rungs.empty() && request.workloads.empty();
  if (!rungs_only) plan.workloads = pick(request.workloads, all_workloads(), "workload");
  const std::vector<const Workload*> own_cases_for = plan.workloads;
  for (const Rung* r : plan.rungs)
    if (const Workload* w = find_workload(r->workload)) add_once(plan.workloads, w);

  std::vector<const Layer*> layers = pick(request.layers, all_layers(), "layer");
  plan.layers_named = !request.layers.empty();
  std::vector<const Layer*> rung_layers;
  if (!plan.rungs.empty()) {
    if (request.layers.empty()) {
      if (const auto capable = rung_capable_layers(); !capable.empty()) rung_layers.push_back(capable.front());
      if (rungs_only) layers = rung_layers;
    } else {
      for (const Layer* l : layers) {
        if (l->runs_rungs) rung_layers.push_back(l);
        else plan.no_rungs.push_back(l->name);
      }
    }
    if (rung_layers.empty())
      throw UsageError("--rung needs a layer that runs ladder rungs (" + rung_capable_names() + "); -l named " +
                       names_of(request.layers));
  }

  const double host_memory = host_memory_bytes();
  // The GPU's memory when the run has GPU layers (0 without a usable GPU: not checked); only a
  // workload that says what its buffers take (Workload::device_bytes, a folder's) is checked by it.
  const double device_memory =
      std::any_of(layers.begin(), layers.end(), [](const Layer* l) { return l->on_gpu; }) ? device_limits().memory_bytes : 0;
  for (const Workload* w : plan.workloads) {
    const bool named = std::find(request.workloads.begin(), request.workloads.end(), w->name()) != request.workloads.end();
    const bool own_form_given = std::any_of(request.sizes.begin(), request.sizes.end(),
                                            [&](const std::string& text) { return written_as(*w, text); });
    auto sizes = sizes_for(*w, request.sizes, named, own_form_given, host_memory, device_memory);
    if (sizes.empty()) plan.no_size.push_back(w->name());
    else plan.sizes.emplace_back(w, std::move(sizes));
  }
  if (plan.sizes.empty() && !plan.no_size.empty())  // every size MxNxK, and no workload here takes one
    throw UsageError("size '" + one_line(request.sizes.front()) + "' is MxNxK, but no workload of this run takes one (" +
                     names_of(plan.no_size) + (plan.no_size.size() == 1 ? " takes" : " take") + " one number)");

  // Layers that cannot run here are left out, grouped by reason.
  for (const Layer* l : layers) {
    const std::string reason = l->unavailable_reason();
    if (reason.empty()) plan.layers.push_back(l);
    else plan.unavailable[reason].push_back(l->name);
  }
  const auto available = [&](const Layer* l) {
    return std::find(plan.layers.begin(), plan.layers.end(), l) != plan.layers.end();
  };

  const bool default_sweep = request.sizes.empty();
  for (const auto& [w, sizes] : plan.sizes)
    for (const PlannedSize& size : sizes) {
      const Shape& s = size.shape;
      if (std::find(own_cases_for.begin(), own_cases_for.end(), w) != own_cases_for.end())
        for (const Layer* l : plan.layers) {
          if (!find_variant(l->name, w->name())) continue;
          const Case c{w, l, s, nullptr, size.does_not_fit};
          if (default_sweep && l->in_default_sweep && !l->in_default_sweep(*w, s)) plan.left_out.push_back(c.name());
          else plan.cases.push_back(c);
        }
      // The rungs of this workload after the layers' own kernels, on the same inputs.
      for (const Rung* r : plan.rungs)
        for (const Layer* l : rung_layers)
          if (r->workload == w->name() && available(l) && find_variant(l->name, w->name()))
            plan.cases.push_back(Case{w, l, s, r, size.does_not_fit});
    }
  // A layer that changes the context for later work (Layer::changes_context) goes last, so that
  // every other layer is measured in a context as it was before any of them ran.
  std::stable_partition(plan.cases.begin(), plan.cases.end(),
                        [](const Case& c) { return c.layer->changes_context.empty(); });
  return plan;
}

void print_plan_notes(const SuitePlan& plan, std::FILE* out) {
  // Without a GPU, one line for every GPU layer: the GPU's reason, then what some layers lack
  // besides (a layer's reason "<GPU's reason>; pycuda also not installed"), each once.
  const std::string gpu = plan.unavailable.empty() || plan.layers_named ? std::string() : gpu_unavailable_reason();
  std::vector<std::string> gpu_layers, besides;
  for (const auto& [reason, names] : plan.unavailable) {
    if (plan.layers_named) {
      for (const auto& n : names) std::fprintf(out, "layerbench: layer %s skipped: %s\n", n.c_str(), reason.c_str());
    } else if (!gpu.empty() && (reason == gpu || reason.starts_with(gpu + "; "))) {
      gpu_layers.insert(gpu_layers.end(), names.begin(), names.end());
      if (reason != gpu) add_once(besides, reason.substr(gpu.size() + 2));
    } else {
      std::fprintf(out, "layerbench: GPU layers skipped (%s): %s\n", names_of(names).c_str(), reason.c_str());
    }
  }
  if (!gpu_layers.empty()) {
    // In the registry's order (the plan groups them by reason).
    std::vector<std::string> ordered;
    for (const Layer* l : all_layers())
      if (std::find(gpu_layers.begin(), gpu_layers.end(), l->name) != gpu_layers.end()) ordered.push_back(l->name);
    std::string why = gpu;
    for (const auto& b : besides) why += "; " + b;
    std::fprintf(out, "layerbench: GPU layers skipped (%s): %s\n", names_of(ordered).c_str(), why.c_str());
  }
  if (!plan.no_rungs.empty())
    std::fprintf(out, "layerbench: ladder rungs run only through %s: no rung cases on %s\n",
                 rung_capable_names().c_str(), names_of(plan.no_rungs).c_str());
  if (!plan.no_size.empty())
    std::fprintf(out, "layerbench: no --size value is a size of %s (MxNxK is for matrix workloads; with an MxNxK size, one "
                      "number is for the others): not run\n",
                 names_of(plan.no_size).c_str());
  for (const auto& name : plan.left_out)
    std::fprintf(out, "layerbench: %s is left out of the default sweep (too slow on this layer); ask for it with --size\n",
                 name.c_str());
}

}  // namespace lb
