// check_workload_folder through the embedded interpreter (workload_folder.h).
#include "variants/python/workload_folder.h"

#include "common/data_root.h"
#include "common/usage_error.h"

#ifdef LB_PYTHON_UNAVAILABLE  // a build without the embedded interpreter: every folder is refused, saying why

namespace lb {
WorkloadFolderSummary check_workload_folder(const std::string& dir) {
  throw UsageError("--workload-dir " + dir + ": reading a workload folder needs the embedded Python: " LB_PYTHON_UNAVAILABLE);
}
}  // namespace lb

#else

#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <filesystem>

#include "variants/python/python_layer.h"
#include "variants/python/python_object.h"

namespace py = pybind11;

namespace lb {
namespace {

// workloads/folder/workload_folder.py, imported once, with its folder on sys.path (after the
// interpreter's own path). Never released: the interpreter is never finalized (python_layer.cpp).
py::module_ folder_module() {
  static const py::module_* module = [] {
    py::list path = py::module_::import("sys").attr("path");
    const std::string dir = (data_root() / "workloads" / "folder").string();
    if (!path.contains(dir)) path.append(dir);
    return new py::module_(py::module_::import("workload_folder"));
  }();
  return *module;
}

}  // namespace

WorkloadFolderSummary check_workload_folder(const std::string& dir) {
  if (const std::string why = embedded_python_unavailable_reason(); !why.empty())
    throw UsageError("--workload-dir " + dir + ": reading a workload folder needs the embedded Python: " + why);
  try {
    const py::module_ module = folder_module();
    const py::object folder = module.attr("load")(dir);
    module.attr("nvrtc_check")(folder);
    WorkloadFolderSummary s;
    s.name = folder.attr("name").cast<std::string>();
    s.summary = folder.attr("summary").cast<std::string>();
    s.size_form = folder.attr("size_form").cast<std::string>();
    s.default_sizes = folder.attr("default_sizes").cast<std::vector<std::string>>();
    s.kernel = folder.attr("kernel_name").cast<std::string>();
    for (const py::handle layer : folder.attr("python_layers")) s.python_layers.push_back(py::str(layer));
    s.content_hash = folder.attr("content_hash").cast<std::string>();
    return s;
  } catch (const py::error_already_set& e) {
    // WorkloadFolderError's text is already one line naming the file and field; anything else
    // (jsonschema missing, the module broken) is said as Python's last traceback line.
    if (e.matches(folder_module().attr("WorkloadFolderError"))) throw UsageError(py::str(e.value()).cast<std::string>());
    throw UsageError("--workload-dir " + dir + ": " + python::python_error_line(e));
  }
}

}  // namespace lb

#endif  // LB_PYTHON_UNAVAILABLE
