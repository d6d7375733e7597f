// The Python layers in a build without an embeddable Python (no Python headers and library, or no
// pybind11, when CMake configured): registered, so that `list` and `run` name them, but
// unavailable, saying why.
#include "common/gpu.h"
#include "variants/python/python_layer.h"
#include "variants/variant.h"
#include <nlohmann/json.hpp>

namespace lb {
namespace {

// As python_layer.cpp's: without a GPU, the GPU's reason first (the one every GPU layer gives),
// this build's after it, so that the run's one line about the GPU layers folds it in.
std::string unavailable_reason(bool on_gpu) {
  if (const std::string gpu = on_gpu ? gpu_unavailable_reason() : std::string(); !gpu.empty())
    return gpu + "; the Python layers also unavailable: " LB_PYTHON_UNAVAILABLE;
  return LB_PYTHON_UNAVAILABLE;
}

}  // namespace

std::string embedded_python_unavailable_reason() { return LB_PYTHON_UNAVAILABLE; }

std::string python_layers_built_without() { return LB_PYTHON_UNAVAILABLE; }

std::optional<EmbeddedPython> embedded_python() { return std::nullopt; }

std::vector<PythonLibrary> python_layer_libraries(const std::string&) { return {}; }

bool register_python_layer(PythonLayer layer) {
  return register_layer(Layer{
      .name = layer.name,
      .summary = layer.summary,
      .on_gpu = layer.on_gpu,
      .rank = layer.rank,
      .unavailable_reason = [on_gpu = layer.on_gpu] { return unavailable_reason(on_gpu); },
      .describe = [] { return nlohmann::json{{"language", "Python"}}; },
      .not_provided = layer.not_provided,
      .changes_context = layer.changes_context,
  });
}

}  // namespace lb
