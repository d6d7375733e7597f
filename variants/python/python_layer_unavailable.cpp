// The Python layers in a build without an embeddable Python (no Python headers and library, or no
// pybind11, when CMake configured): registered, so that `list` and `run` name them, but
// unavailable, saying why.
#include "variants/python/python_layer.h"
#include "variants/variant.h"

namespace lb {

std::string embedded_python_unavailable_reason() { return LB_PYTHON_UNAVAILABLE; }

bool register_python_layer(PythonLayer layer) {
  return register_layer(Layer{
      .name = layer.name,
      .summary = layer.summary,
      .on_gpu = layer.on_gpu,
      .rank = layer.rank,
      .unavailable_reason = [] { return std::string(LB_PYTHON_UNAVAILABLE); },
      .describe = [] { return nlohmann::json{{"language", "Python"}}; },
      .not_provided = layer.not_provided,
  });
}

}  // namespace lb
