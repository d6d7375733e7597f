// Python layers: a layer whose variants are Python files, variants/<layer>/<workload>.py, run by
// the same harness as the C++ layers through an embedded CPython interpreter. Each file defines a
// class `Variant` with the four calls every variant makes (allocate, upload, run, download) and
// `run_waits`; the adapter (python_layer.cpp) calls them with the harness's stream as an integer
// handle and the host buffers as NumPy views (no copies). docs/architecture.md says where this
// sits; docs/adding.md how to add a Python layer.
#pragma once
#include <map>
#include <string>
#include <vector>

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
};

// Registers the layer and one variant per <workload>.py in its folder. Unavailable, with the
// reason, where this build has no embeddable Python, the interpreter cannot start, or one of
// `modules` does not import (or, for a GPU layer, there is no GPU).
bool register_python_layer(PythonLayer layer);

// The embedded interpreter for Python code other than the layers' (the Python labs, lab/): started
// on first use, with sys.path set up as for the layers. Empty when it runs, else why it cannot.
std::string embedded_python_unavailable_reason();

// Why this build has no Python layers (CMake's reason: "built without the Python layers
// (-DLAYERBENCH_PYTHON_LAYERS=OFF)", no pybind11, no embeddable Python); empty when it has them.
// Tests that need the embedded interpreter skip with it.
std::string python_layers_built_without();

}  // namespace lb

#define LB_REGISTER_PYTHON_LAYER(...) \
  static const bool LB_CONCAT(lb_python_layer_registered_, __LINE__) = ::lb::register_python_layer(__VA_ARGS__)
