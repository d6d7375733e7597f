// Python layers: a layer whose variants are Python files, variants/<layer>/<workload>.py, run by
// the same harness as the C++ layers through an embedded CPython interpreter. Each file defines a
// class `Variant` with the four calls every variant makes (allocate, upload, run, download) and
// `run_waits` (the protocol: lb_variant.py); the adapter (python_layer.cpp, through python_object.h)
// calls them with the harness's stream as an integer handle and the host buffers as NumPy views (no
// copies), and gives each layer's variants its Python session. docs/architecture.md says where this
// sits; docs/adding.md how to add a Python layer.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "variants/variant.h"     // LayerClock
#include "workloads/workload.h"  // LB_CONCAT

namespace lb {

struct PythonLayer {
  std::string name;
  std::string summary;
  bool on_gpu = false;
  int rank = 0;
  std::string dir;                   // relative to the source tree: "variants/<layer>"
  std::vector<std::string> modules;  // what the layer imports; each import is a one-time cost
  // The module (on the layer's or lb_shared's path) whose libraries() says which CUDA libraries
  // the layer loaded, with versions and paths: `list` and the results show it. Empty: none.
  std::string libraries_from;
  // Workloads the library has no natural way to express, each with why (`list` shows them).
  std::map<std::string, std::string> not_provided;
  std::string changes_context;  // as Layer::changes_context
  LayerClock timing = LayerClock::kDeviceEvents;  // as Layer::timing
};

// Registers the layer and one variant per <workload>.py in its folder. Unavailable, with the
// reason, where this build has no embeddable Python, the interpreter cannot start, or one of
// `modules` does not import (or, for a GPU layer, there is no GPU).
bool register_python_layer(PythonLayer layer);

// The embedded interpreter for Python code other than the layers' (the Python labs, lab/): started
// on first use, with sys.path set up as for the layers. Empty when it runs, else why it cannot.
std::string embedded_python_unavailable_reason();

// What the Python layers share: the embedded interpreter, whose packages they use (`list` names
// it). nullopt in a build without the Python layers. Starts the interpreter (as describe() does).
struct EmbeddedPython {
  std::string executable;  // the interpreter whose sys.path is used ($LAYERBENCH_PYTHON, the .venv, python3)
  std::string version;     // "3.12": the one this build embeds
};
std::optional<EmbeddedPython> embedded_python();

// One CUDA library a Python layer loaded, as its `libraries_from` module's libraries() reports it
// (the "libraries" of Layer::describe()).
struct PythonLibrary {
  std::string name;       // "nvrtc", "cudart", "driver", ...
  std::string version;    // as the layer's package reports it
  std::string path;       // as cuda.pathfinder resolved it
  std::string found_via;
  std::string error;      // why it could not be found (or the libraries() call failed); the rest empty
};
// The libraries of Python layer `layer`; empty for another layer, a layer that names none or
// cannot run here, and in a build without the Python layers.
std::vector<PythonLibrary> python_layer_libraries(const std::string& layer);

// Why this build has no Python layers (CMake's reason: "built without the Python layers
// (-DLAYERBENCH_PYTHON_LAYERS=OFF)", no pybind11, no embeddable Python); empty when it has them.
// Tests that need the embedded interpreter skip with it.
std::string python_layers_built_without();

}  // namespace lb

#define LB_REGISTER_PYTHON_LAYER(...) \
  static const bool LB_CONCAT(lb_python_layer_registered_, __LINE__) = ::lb::register_python_layer(__VA_ARGS__)
