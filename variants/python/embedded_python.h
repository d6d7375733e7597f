// What the embedded-Python adapters (the Python layers, the Python labs) share: host buffers the
// harness owns as NumPy arrays (no copy), a CUDA stream as the integer handle Python libraries
// take, and a Python exception as one line.
#pragma once
#include <cuda_runtime.h>
#include <pybind11/numpy.h>

#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <string>

namespace lb {

// A NumPy array over memory the harness owns: no copy; read-only unless `writable`.
inline pybind11::array_t<float> numpy_view(std::span<const float> data, bool writable) {
  namespace py = pybind11;
  static int owner_tag = 0;  // a base object keeps NumPy from copying; this one frees nothing
  static const py::capsule not_owned(&owner_tag, [](void*) {});
  py::array_t<float> array({static_cast<py::ssize_t>(data.size())}, {static_cast<py::ssize_t>(sizeof(float))},
                           const_cast<float*>(data.data()), not_owned);
  if (!writable) array.attr("setflags")(py::arg("write") = false);
  return array;
}

inline pybind11::int_ stream_handle(cudaStream_t stream) {
  return pybind11::int_(reinterpret_cast<std::uintptr_t>(stream));
}

// A Python exception as one line, the last line of its traceback: "ValueError: bad size".
inline std::string python_error_line(const pybind11::error_already_set& e) {
  namespace py = pybind11;
  std::string line = e.type() ? py::str(e.type().attr("__name__")).cast<std::string>() : "Python error";
  if (e.value()) line += ": " + py::str(e.value()).cast<std::string>();
  return line;
}

}  // namespace lb
