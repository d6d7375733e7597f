// The one C++/Python boundary that the Python layers (python_layer.cpp's PythonVariant) and the
// Python labs (lab/runners/python/python_student_embedded.cpp's PythonStudentVariant) both use: a Python
// exception as the harness's error, the objects the variant protocol takes (lb_variant.Size,
// Setup, Problem, Workload), the harness's host buffers as NumPy views and its stream as an
// integer handle, and a Python object implementing lb_variant.Variant, called with all of that.
// Only for code built with the embedded interpreter (variants/python/CMakeLists.txt).
#pragma once
#include <cuda_runtime.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>

#include "variants/variant.h"
#include "workloads/workload.h"

namespace lb::python {

// A NumPy array over memory the harness owns: no copy; read-only unless `writable`.
pybind11::array_t<float> numpy_view(std::span<const float> data, bool writable);

// A CUDA stream as the integer handle Python's CUDA libraries take (0: the legacy default stream).
pybind11::int_ stream_handle(cudaStream_t stream);

// A Python exception as one line, the last line of its traceback: "ValueError: bad size".
std::string python_error_line(const pybind11::error_already_set& e);

// Called first with a Python exception: throws the caller's own error for the exceptions it knows
// (the labs': layerbench.lab.StudentError -> StudentCompileError), returns for the others.
using ErrorHook = std::function<void(const pybind11::error_already_set& e)>;

// Throws the harness's error for a Python exception raised by `what`: the hook's, else
//  - MemoryError (CuPy's OutOfMemoryError is one; the layers raise it for CUDA_ERROR_OUT_OF_MEMORY)
//    -> DeviceOutOfMemory: the harness skips the case, as for a C++ layer's allocation that does
//    not fit;
//  - Numba's CudaAPIError, CudaDriverError -> CudaError (the context may be unusable: the labs stop);
//  - anything else -> std::runtime_error "<what>: <the exception's last line>".
[[noreturn]] void throw_mapped(const pybind11::error_already_set& e, const std::string& what,
                               const ErrorHook& hook = {});

// Runs `call`; a Python exception becomes the harness's error (throw_mapped).
template <class Call>
auto checked(const std::string& what, Call&& call, const ErrorHook& hook = {}) -> decltype(call()) {
  try {
    return call();
  } catch (pybind11::error_already_set& e) {
    throw_mapped(e, what, hook);
  }
}

// lb_variant.Size(m, n, k).
pybind11::object size_object(const Shape& s);
// lb_variant.Setup(stream, cost, session): cost(what, ms) adds to `costs` (nothing where null).
pybind11::object setup_object(cudaStream_t stream, CostLog* costs, pybind11::object session,
                              pybind11::object workload = pybind11::none());
// lb_variant.Problem(m, n, k, alpha, inputs, output): read-only NumPy views of the problem's buffers.
pybind11::object problem_object(const HostProblem& p);
// lb_variant.Workload: the descriptor's buffers (extents as "m", "n", "k") and kernel arguments.
pybind11::object workload_object(const WorkloadDescriptor& d);

// A Python object that implements lb_variant.Variant (a layer's variant, a lab's runner), called
// through the mapping above. `what` names it in errors ("matmul.py", "lab runner"); `around` runs
// each call (the layers route a library's warnings into the case's notes with it).
// Hidden, as pybind11's own types are (the objects it holds; g++ warns of a visible class that holds them).
class __attribute__((visibility("hidden"))) VariantObject {
 public:
  using Around = std::function<void(const std::function<void()>& call)>;
  VariantObject() = default;
  VariantObject(pybind11::object object, std::string what, ErrorHook hook = {}, Around around = {});

  // `workload`: a folder workload's WorkloadFolder (setup.workload); None for a built-in workload.
  void allocate(const Shape& s, cudaStream_t stream, CostLog* costs, pybind11::object session,
                pybind11::object workload = pybind11::none());
  void upload(const HostProblem& p, cudaStream_t stream) { call("upload", problem_object(p), stream_handle(stream)); }
  void run(cudaStream_t stream) { call("run", stream_handle(stream)); }
  void download(std::span<float> out, cudaStream_t stream) {
    call("download", numpy_view(out, true), stream_handle(stream));
  }
  bool run_waits() const { return run_waits_; }

  // Any other method of the object, its result (None for none), with the same mapping.
  // g++ 12 warns (-Wattributes) that the lambda below is more visible than the pybind11 objects it
  // captures, pybind11's types being hidden: GCC bug 80947 (a lambda's closure is as hidden as what
  // it captures; nothing is exported), fixed in g++ 13. Off for this function only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
  template <class... Args>
  pybind11::object call(const char* method, Args&&... args) {
    pybind11::object result;
    const std::function<void()> body = [&] {
      result = checked(what_ + " " + method + "()",
                       [&] { return object_.attr(method)(std::forward<Args>(args)...); }, hook_);
    };
    if (around_) around_(body);
    else body();
    return result;
  }
#pragma GCC diagnostic pop

 private:
  pybind11::object object_;
  std::string what_;
  ErrorHook hook_;
  Around around_;
  bool run_waits_ = false;
};

}  // namespace lb::python
