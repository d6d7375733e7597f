#include "variants/python/python_object.h"

#include <stdexcept>

#include "common/cuda_check.h"

namespace py = pybind11;

namespace lb::python {
namespace {

// lb_variant, imported once (the interpreter is never finalized: python_layer.cpp says why).
const py::module_& lb_variant() {
  static const py::module_* module = new py::module_(py::module_::import("lb_variant"));
  return *module;
}

py::tuple dims(const std::vector<Dim>& extents) {
  py::tuple names(extents.size());
  for (std::size_t i = 0; i < extents.size(); ++i) names[i] = py::str(to_string(extents[i]));
  return names;
}

py::object buffer_object(const BufferSpec& b) { return lb_variant().attr("Buffer")(b.name, dims(b.extents)); }

const char* kind_name(ArgKind kind) {
  switch (kind) {
    case ArgKind::kInput: return "input";
    case ArgKind::kOutput: return "output";
    case ArgKind::kScalar: return "scalar";
    case ArgKind::kSize: return "size";
  }
  throw std::logic_error("unknown ArgKind");
}

}  // namespace

py::array_t<float> numpy_view(std::span<const float> data, bool writable) {
  static int owner_tag = 0;  // a base object keeps NumPy from copying; this one frees nothing
  static const py::capsule not_owned(&owner_tag, [](void*) {});
  py::array_t<float> array({static_cast<py::ssize_t>(data.size())}, {static_cast<py::ssize_t>(sizeof(float))},
                           const_cast<float*>(data.data()), not_owned);
  if (!writable) array.attr("setflags")(py::arg("write") = false);
  return array;
}

py::int_ stream_handle(cudaStream_t stream) { return py::int_(reinterpret_cast<std::uintptr_t>(stream)); }

std::string python_error_line(const py::error_already_set& e) {
  std::string line = e.type() ? py::str(e.type().attr("__name__")).cast<std::string>() : "Python error";
  if (e.value()) line += ": " + py::str(e.value()).cast<std::string>();
  return line;
}

void throw_mapped(const py::error_already_set& e, const std::string& what, const ErrorHook& hook) {
  if (hook) hook(e);
  if (e.matches(PyExc_MemoryError)) throw DeviceOutOfMemory(what + ": " + python_error_line(e), cudaErrorMemoryAllocation);
  // Numba's CUDA errors, by name: numba need not be imported (or installed) for the others.
  const std::string type = e.type() ? py::str(e.type().attr("__name__")).cast<std::string>() : "";
  if (type == "CudaAPIError" || type == "CudaDriverError") throw CudaError(python_error_line(e), -1);
  throw std::runtime_error(what + ": " + python_error_line(e));
}

py::object size_object(const Shape& s) { return lb_variant().attr("Size")(s.m, s.n, s.k); }

py::object setup_object(cudaStream_t stream, CostLog* costs, py::object session, py::object workload) {
  const py::cpp_function cost([costs](const std::string& what, double ms) {
    if (costs) costs->add(what, ms);
  });
  return lb_variant().attr("Setup")(stream_handle(stream), cost, std::move(session), std::move(workload));
}

py::object problem_object(const HostProblem& p) {
  py::list inputs;
  for (const HostBuffer& input : p.inputs) inputs.append(numpy_view(input, false));
  return lb_variant().attr("Problem")(p.shape.m, p.shape.n, p.shape.k, p.alpha, inputs, numpy_view(p.output, false));
}

py::object workload_object(const WorkloadDescriptor& d) {
  py::list inputs, args;
  for (const BufferSpec& b : d.inputs) inputs.append(buffer_object(b));
  for (const KernelArg& a : d.kernel_args)
    args.append(lb_variant().attr("KernelArg")(a.name, kind_name(a.kind), a.input, to_string(a.dim), a.type));
  return lb_variant().attr("Workload")(d.name, py::tuple(inputs), buffer_object(d.output), py::tuple(args));
}

VariantObject::VariantObject(py::object object, std::string what, ErrorHook hook, Around around)
    : object_(std::move(object)), what_(std::move(what)), hook_(std::move(hook)), around_(std::move(around)) {}

void VariantObject::allocate(const Shape& s, cudaStream_t stream, CostLog* costs, py::object session,
                             py::object workload) {
  call("allocate", size_object(s), setup_object(stream, costs, std::move(session), std::move(workload)));
  run_waits_ = checked(what_ + " run_waits", [&] { return py::bool_(object_.attr("run_waits")); }, hook_);
}

}  // namespace lb::python
