// read_workload_folder and register_workload_folder through the embedded interpreter (workload_folder.h).
#include "variants/python/workload_folder.h"

#include "common/data_root.h"
#include "common/python_interpreter.h"
#include "common/usage_error.h"

#include <stdexcept>

#ifdef LB_PYTHON_UNAVAILABLE  // a build without the embedded interpreter: every folder is refused, saying why

namespace lb {
std::string workload_folders_unavailable_reason() { return "it needs the embedded Python: " LB_PYTHON_UNAVAILABLE; }
std::unique_ptr<FolderWorkload> read_workload_folder(const std::string& dir) {
  throw UsageError("--workload-dir " + dir + ": reading a workload folder needs the embedded Python: " LB_PYTHON_UNAVAILABLE);
}
WorkloadFolderSummary folder_summary(const FolderWorkload&) { throw std::logic_error("unreachable"); }
const FolderWorkload& register_workload_folder(const std::string& dir) {
  read_workload_folder(dir);
  throw std::logic_error("unreachable");
}
}  // namespace lb

#else

#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <pybind11/numpy.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <tuple>

#include "variants/python/python_folder.h"
#include "variants/python/python_layer.h"
#include "variants/python/python_object.h"
#include "variants/variant.h"
#include "workloads/sizes.h"

namespace py = pybind11;

namespace lb {
namespace {

// What installs a Python package that workload_folder.py needs into the interpreter whose packages
// the embedded one uses (`python`: $LAYERBENCH_PYTHON, the project's .venv/bin/python3, or python3;
// not the embedded interpreter's own sys.executable, which may be a shim of another Python).
std::string install_hint(const std::string& python, const std::string& package) {
  const std::string pip = "'" + python + "' -m pip install ";
  if (package == "numpy") return pip + "-r '" + (data_root() / "variants" / "python" / "requirements.txt").string() + "'";
  if (package == "jsonschema") return pip + "-r '" + (data_root() / "python" / "requirements.txt").string() + "'";
  return pip + package;
}

// workloads/folder/workload_folder.py, imported once, with its folder on sys.path (after the
// interpreter's own path); nullptr, with *why, when it cannot be imported (NumPy missing, as in a
// CPU-only pip install): one line naming what to install. Tried once: a failed import is not
// retried, so no handler imports the failed module again. Never released: the interpreter is never
// finalized (python_layer.cpp).
const py::module_* folder_module_or_null(std::string* why = nullptr) {
  static std::string failure;
  static const py::module_* module = []() -> const py::module_* {
    try {
      py::list path = py::module_::import("sys").attr("path");
      const std::string dir = (data_root() / "workloads" / "folder").string();
      if (!path.contains(dir)) path.append(dir);
      return new py::module_(py::module_::import("workload_folder"));
    } catch (const py::error_already_set& e) {
      if (e.matches(PyExc_ModuleNotFoundError) && py::hasattr(e.value(), "name") && !e.value().attr("name").is_none()) {
        const std::string package = py::str(e.value().attr("name")).cast<std::string>();
        const std::string python = chosen_python();  // common/python_interpreter.h: whose sys.path the embedded one took
        failure = "it needs the Python package " + package + " in the interpreter whose packages the embedded one uses (" +
                  python + "): " + install_hint(python, package);
      } else {
        failure = "workloads/folder/workload_folder.py cannot be imported: " + python::python_error_line(e);
      }
      return nullptr;
    }
  }();
  if (why) *why = failure;
  return module;
}

py::module_ folder_module() {
  std::string why;
  if (const py::module_* module = folder_module_or_null(&why)) return *module;
  throw UsageError("reading a workload folder: " + why);
}

// Whether `e` is workload_folder.py's WorkloadFolderError (one line naming the file and field);
// false when the module never imported (then nothing of it can have raised).
bool is_folder_error(const py::error_already_set& e) {
  const py::module_* module = folder_module_or_null();
  return module && e.matches(module->attr("WorkloadFolderError"));
}

// Calls into workload_folder.py: WorkloadFolderError's text (one line naming the file and field) and
// anything else as Python's last traceback line, each a UsageError.
template <class Call>
auto folder_call(const std::string& dir, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const py::error_already_set& e) {
    if (is_folder_error(e)) throw UsageError(py::str(e.value()).cast<std::string>());
    throw UsageError("--workload-dir " + dir + ": " + python::python_error_line(e));
  }
}

// The folder loaded and checked (its schema, kernels.cu's parameters, reference.py importable, an
// NVRTC compile): workload_folder.load and nvrtc_check. The launches against the GPU's limits come
// later (check_launches, from app/folder_checks.cpp, which knows the device).
py::object loaded_folder(const std::string& dir) {
  if (const std::string why = embedded_python_unavailable_reason(); !why.empty())
    throw UsageError("--workload-dir " + dir + ": reading a workload folder needs the embedded Python: " + why);
  if (std::string why; !folder_module_or_null(&why)) throw UsageError("--workload-dir " + dir + ": reading a workload folder: " + why);
  return folder_call(dir, [&] {
    const py::module_ module = folder_module();
    py::object folder = module.attr("load")(dir);
    module.attr("nvrtc_check")(folder, py::arg("limits") = false);  // the launches: check_launches, with the GPU's
    return folder;
  });
}

py::dict size_dict(const Shape& s) {
  py::dict d;
  d["m"] = s.m;
  d["n"] = s.n;
  d["k"] = s.k;
  return d;
}

Dim dim_named(const std::string& name) { return name == "m" ? Dim::kM : name == "k" ? Dim::kK : Dim::kN; }

// The loaded folders, never released: the interpreter is never finalized (python_layer.cpp), and
// the workload registry outlives main(). Held from a static pointer, so that they stay reachable
// (LeakSanitizer reports memory that nothing points at); a deque keeps each element where it is.
const py::object& keep_loaded(py::object folder) {
  static auto* loaded = new std::deque<py::object>();
  loaded->push_back(std::move(folder));
  return loaded->back();
}

// A folder's workload, each question answered by workload_folder.py on the loaded folder: sizes and
// formulas, the drawn problem (its bytes copied into the harness's buffers), and the check.
class PythonFolderWorkload final : public FolderWorkload {
 public:
  PythonFolderWorkload(WorkloadDescriptor d, FolderSpec spec, py::object folder)
      : FolderWorkload(std::move(d), std::move(spec)), folder_(&keep_loaded(std::move(folder))) {}

  const py::object& folder() const { return *folder_; }

  // The folder's default_sizes through the one size parser (workloads/sizes.h, as -s reads sizes):
  // UsageError naming the field for a bad one ("2^64": too large).
  std::vector<Shape> default_sizes() const override {
    std::vector<Shape> shapes;
    const auto texts = call([&] { return folder().attr("default_sizes").cast<std::vector<std::string>>(); });
    for (std::size_t j = 0; j < texts.size(); ++j) {
      try {
        shapes.push_back(parse_shape(texts[j], *this));
      } catch (const UsageError& e) {
        throw UsageError(spec().dir + "/workload.json: default_sizes[" + std::to_string(j) + "]: " + e.what());
      }
      for (std::size_t i = 0; i + 1 < shapes.size(); ++i)
        if (shapes[i] == shapes.back())
          throw UsageError(spec().dir + "/workload.json: default_sizes[" + std::to_string(j) + "]: '" + texts[j] +
                           "' is the size of default_sizes[" + std::to_string(i) + "] ('" + texts[i] + "'): give each size once");
    }
    return shapes;
  }
  double bytes_read(const Shape& s) const override { return formula("bytes_read", s); }
  double bytes_written(const Shape& s) const override { return formula("bytes_written", s); }
  double flops(const Shape& s) const override { return formula("flops", s); }

  // A formula that cannot be evaluated at `s` (a division by zero, an extent below 1) is bad input,
  // one line naming the field: the plan asks this (device_bytes) before any case.
  std::vector<std::vector<std::int64_t>> buffer_shapes(const Shape& s) const override {
    return folder_call(spec().dir, [&] {
      folder().attr("check_extents")(size_dict(s));
      return folder_module().attr("buffer_shapes")(folder(), size_dict(s)).cast<std::vector<std::vector<std::int64_t>>>();
    });
  }

  std::array<unsigned, 3> grid(const Shape& s, std::size_t kernel) const override {
    const auto blocks =
        call([&] { return folder().attr("grid_blocks")(size_dict(s), kernel).cast<std::vector<std::int64_t>>(); });
    std::array<unsigned, 3> g{1, 1, 1};
    const std::int64_t limits[3] = {2147483647, 65535, 65535};
    for (std::size_t i = 0; i < blocks.size() && i < 3; ++i) {
      if (blocks[i] > limits[i])
        throw std::runtime_error(spec().dir + "/workload.json: launch.grid[" + std::to_string(i) + "] is " +
                                 std::to_string(blocks[i]) + " blocks at " + size_label(s) + ", above the device's " +
                                 std::to_string(limits[i]));
      g[i] = static_cast<unsigned>(blocks[i]);
    }
    return g;
  }

  HostProblem make_problem(const Shape& s, std::uint64_t seed) const override {
    HostProblem p;
    p.shape = s;
    p.seed = seed;
    const FolderLayout l = layout(s);
    p.output.resize(static_cast<std::size_t>(floats_for(l.output_bytes)));
    fill_nan_bytes(p.output);  // the padding between outputs; each output's own bytes are drawn below
    call([&] {
      const py::object problem = folder().attr("draw_problem")(size_dict(s), seed);
      const py::dict inputs = problem.attr("inputs"), outputs = problem.attr("outputs");
      for (std::size_t i = 0; i < spec().buffers.size(); ++i) {
        const FolderBuffer& b = spec().buffers[i];
        const FolderLayout::Place& place = l.buffers[i];
        const py::array array =
            py::module_::import("numpy").attr("ascontiguousarray")((b.output ? outputs : inputs)[b.name.c_str()]);
        if (static_cast<std::int64_t>(array.nbytes()) != place.bytes)
          throw std::logic_error(b.name + ": drawn " + std::to_string(array.nbytes()) + " bytes, expected " +
                                 std::to_string(place.bytes));
        unsigned char* target;
        if (b.output) {
          target = reinterpret_cast<unsigned char*>(p.output.data()) + place.offset;
        } else {
          p.inputs.emplace_back(static_cast<std::size_t>(floats_for(place.bytes)));
          target = reinterpret_cast<unsigned char*>(p.inputs.back().data());
        }
        std::memcpy(target, array.data(), static_cast<std::size_t>(place.bytes));
      }
    });
    return p;
  }

  Verdict verify(const HostProblem& problem, std::span<const float> result) const override {
    const py::list verdicts = call([&] {
      const py::module_ module = folder_module();
      // The problem as drawn (an in/out buffer's drawn values are the reference's input); the result
      // read as the outputs.
      const py::object p = module.attr("case_problem")(folder(), size_dict(problem.shape), problem.seed,
                                                        python::folder_views(*this, problem, problem.output, false));
      const py::object got = module.attr("output_arrays")(folder(), size_dict(problem.shape),
                                                          python::output_views(*this, problem.shape, result, false));
      return py::list(folder().attr("check")(p, got));
    });
    // One verdict for the case: every output passed, and the worst output (by its error against its
    // bound; an integer output's bound is 0, exact) stands for them.
    Verdict v;
    v.passed = true;
    double worst = -1;
    for (const py::handle item : verdicts) {
      const bool passed = item.attr("passed").cast<bool>();
      const double error = item.attr("max_error").cast<double>(), bound = item.attr("bound").cast<double>();
      const double ratio = bound > 0 ? error / bound : (error > 0 ? std::numeric_limits<double>::infinity() : 0.0);
      if (!passed) {
        v.detail += (v.detail.empty() ? "" : "; ") + item.attr("detail").cast<std::string>();
        v.passed = false;
      }
      if (ratio > worst) {
        worst = ratio;
        v.max_rel_error = error;
        v.tolerance = bound;
      }
    }
    return v;
  }

  void check_reference(const Shape& s, std::uint64_t seed) const override {
    folder_call(spec().dir, [&] { folder_module().attr("check_reference")(folder(), size_dict(s), seed); });
  }

  void check_launches(const BlockLimits& limits) const override {
    folder_call(spec().dir, [&] {
      py::dict l;
      l["name"] = limits.gpu_name;
      l["arch"] = limits.arch;
      l["max_threads_per_block"] = limits.max_threads;
      l["regs_per_block"] = limits.registers;
      l["shared_per_block"] = limits.shared;
      l["shared_per_block_optin"] = limits.shared_opt_in;
      py::module_::import("workload_launch").attr("check_launches")(folder(), l);
    });
  }

  void check_size(const Shape& s, const std::array<long long, 3>& grid_limits) const override {
    folder_call(spec().dir, [&] {
      folder().attr("check_size")(size_dict(s), py::make_tuple(grid_limits[0], grid_limits[1], grid_limits[2]));
    });
  }

 private:
  static void fill_nan_bytes(HostBuffer& b) { std::fill(b.begin(), b.end(), std::numeric_limits<float>::quiet_NaN()); }
  double formula(const char* name, const Shape& s) const {
    return call([&] { return folder().attr(name)(s.m, s.n, s.k).cast<double>(); });
  }
  // A call into the folder during a run: a WorkloadFolderError (reference.py raised) becomes this
  // case's failure with its one line; anything else, Python's last traceback line.
  template <class Call>
  static auto call(Call&& c) -> decltype(c()) {
    try {
      return c();
    } catch (const py::error_already_set& e) {
      if (is_folder_error(e)) throw std::runtime_error(py::str(e.value()).cast<std::string>());
      throw std::runtime_error("workload folder: " + python::python_error_line(e));
    }
  }
  const py::object* folder_;
};

// The descriptor and spec the harness and the layers read, from the loaded folder.
std::unique_ptr<PythonFolderWorkload> folder_workload(const std::string& dir, py::object folder) {
  return folder_call(dir, [&] {
    const py::dict spec = folder_module().attr("spec_for_harness")(folder);
    WorkloadDescriptor d;
    d.name = folder.attr("name").cast<std::string>();
    d.summary = folder.attr("summary").cast<std::string>();
    d.figure = folder.attr("figure").cast<std::string>() == "gflops" ? Figure::kCompute : Figure::kBandwidth;
    const std::string form = folder.attr("size_form").cast<std::string>();
    d.size_form = form == "n" ? SizeForm::kCount : form == "MxN" ? SizeForm::kMatrix : SizeForm::kProduct;
    d.folder = {dir, folder.attr("content_hash").cast<std::string>(),
                py::module_::import("json").attr("dumps")(folder.attr("spec")).cast<std::string>()};
    FolderSpec s;
    s.dir = dir;
    s.kernel_file = spec["kernel_file"].cast<std::string>();
    s.kernel_text = folder.attr("kernel_text").cast<std::string>();
    for (const py::handle b : spec["buffers"]) {
      const auto [name, type, output] = b.cast<std::tuple<std::string, std::string, bool>>();
      s.buffers.push_back({name, element_type(type), output});
      if (output) d.output = BufferSpec{name, {}};
      else d.inputs.push_back(BufferSpec{name, {}});
    }
    int inputs = 0;
    std::vector<int> input_position;
    for (const FolderBuffer& b : s.buffers) input_position.push_back(b.output ? -1 : inputs++);
    const py::list python_kernels = folder.attr("kernels");
    std::size_t index = 0;
    for (const py::handle k : spec["kernels"]) {
      FolderKernel kernel;
      kernel.name = k["name"].cast<std::string>();
      const py::list described_arguments = python_kernels[index++].attr("arguments");
      std::size_t position = 0;
      for (const py::handle a : k["arguments"]) {
        FolderArgument arg;
        arg.name = a["name"].cast<std::string>();
        const std::string kind = a["kind"].cast<std::string>();
        KernelArg described{arg.name, ArgKind::kSize, 0, Dim::kN,
                            described_arguments[position++].attr("c_type").cast<std::string>()};
        if (kind == "buffer") {
          arg.kind = FolderArgument::Kind::kBuffer;
          arg.buffer = a["buffer"].cast<int>();
          const FolderBuffer& b = s.buffers.at(static_cast<std::size_t>(arg.buffer));
          described.kind = b.output ? ArgKind::kOutput : ArgKind::kInput;
          described.input = std::max(0, input_position[static_cast<std::size_t>(arg.buffer)]);
        } else if (kind == "scalar") {
          arg.kind = FolderArgument::Kind::kScalar;
          const std::string bytes = a["value"].cast<std::string>();
          if (bytes.size() > arg.value.size()) throw std::logic_error("a scalar of " + std::to_string(bytes.size()) + " bytes");
          std::memcpy(arg.value.data(), bytes.data(), bytes.size());
          arg.value_bytes = bytes.size();
          described.kind = ArgKind::kScalar;
        } else {
          arg.kind = FolderArgument::Kind::kSize;
          arg.dim = dim_named(a["dim"].cast<std::string>());
          described.dim = arg.dim;
        }
        kernel.arguments.push_back(arg);
        // The descriptor's kernel arguments (what a lab shows its student) are the first kernel's:
        // a lab takes a folder of one kernel (lab_spec.cpp).
        if (s.kernels.empty()) d.kernel_args.push_back(described);
      }
      const auto block = k["block"].cast<std::vector<unsigned>>();
      for (std::size_t i = 0; i < 3; ++i) kernel.launch.block[i] = block.at(i);
      kernel.launch.grid_stride = k["grid_stride"].cast<bool>();
      kernel.launch.shared_bytes = k["shared_bytes"].cast<unsigned>();
      s.kernels.push_back(std::move(kernel));
    }
    return std::make_unique<PythonFolderWorkload>(std::move(d), std::move(s), std::move(folder));
  });
}

}  // namespace

namespace python {

py::object folder_object(const FolderWorkload& w) {
  const auto* found = dynamic_cast<const PythonFolderWorkload*>(&w);
  if (!found) throw std::logic_error(w.name() + " was not read by workload_folder.py");
  return found->folder();
}

namespace {
py::memoryview bytes_view(const void* data, std::int64_t bytes, bool writable) {
  return py::memoryview::from_memory(const_cast<void*>(data), static_cast<py::ssize_t>(bytes), !writable);
}
}  // namespace

py::list output_views(const FolderWorkload& w, const Shape& s, std::span<const float> outputs, bool writable) {
  const FolderLayout l = w.layout(s);
  py::list views;
  for (const FolderLayout::Place& p : l.buffers)
    if (p.output) views.append(bytes_view(reinterpret_cast<const unsigned char*>(outputs.data()) + p.offset, p.bytes, writable));
  return views;
}

py::list folder_views(const FolderWorkload& w, const HostProblem& problem, std::span<const float> outputs, bool writable) {
  const FolderLayout l = w.layout(problem.shape);
  py::list views;
  for (const FolderLayout::Place& p : l.buffers)
    views.append(p.output ? bytes_view(reinterpret_cast<const unsigned char*>(outputs.data()) + p.offset, p.bytes, writable)
                          : bytes_view(problem.inputs.at(p.index).data(), p.bytes, false));
  return views;
}

py::object folder_problem(const FolderWorkload& w, const HostProblem& problem) {
  return checked(w.name() + " problem", [&] {
    return folder_module().attr("case_problem")(folder_object(w), size_dict(problem.shape), problem.seed,
                                                folder_views(w, problem, problem.output, false));
  });
}

py::object folder_outputs(const FolderWorkload& w, const Shape& s, std::span<float> out) {
  return checked(w.name() + " outputs", [&] {
    return folder_module().attr("output_arrays")(folder_object(w), size_dict(s), output_views(w, s, out, true));
  });
}

}  // namespace python

std::string workload_folders_unavailable_reason() {
  if (const std::string why = embedded_python_unavailable_reason(); !why.empty()) return "it needs the embedded Python: " + why;
  std::string why;
  folder_module_or_null(&why);
  return why;
}

std::unique_ptr<FolderWorkload> read_workload_folder(const std::string& dir) {
  return folder_workload(dir, loaded_folder(dir));
}

WorkloadFolderSummary folder_summary(const FolderWorkload& w) {
  const py::object folder = python::folder_object(w);
  return folder_call(w.spec().dir, [&] {
    WorkloadFolderSummary s;
    s.name = folder.attr("name").cast<std::string>();
    s.summary = folder.attr("summary").cast<std::string>();
    s.size_form = folder.attr("size_form").cast<std::string>();
    s.default_sizes = folder.attr("default_sizes").cast<std::vector<std::string>>();
    for (const FolderKernel& k : w.spec().kernels) s.kernels.push_back(k.name);
    for (const py::handle layer : folder.attr("python_layers")) s.python_layers.push_back(py::str(layer));
    s.content_hash = folder.attr("content_hash").cast<std::string>();
    return s;
  });
}

const FolderWorkload& register_workload_folder(const std::string& dir) {
  // The same folder again (a lab parsed twice, a lab and `run --workload-dir` in one process) is
  // the workload it registered, by the folder's canonical path; another folder of the same name is
  // refused below.
  static auto* registered = new std::map<std::filesystem::path, const FolderWorkload*>();
  std::error_code ec;
  const std::filesystem::path key = std::filesystem::weakly_canonical(dir, ec);
  if (!ec)
    if (const auto found = registered->find(key); found != registered->end()) return *found->second;
  std::unique_ptr<PythonFolderWorkload> made = folder_workload(dir, loaded_folder(dir));
  const PythonFolderWorkload& w = *made;
  if (find_workload(w.name()))
    throw UsageError((std::filesystem::path(dir) / "workload.json").string() + ": name: '" + w.name() +
                     "' is already a workload's name (a built-in one, or another --workload-dir's); choose another");
  const py::dict own = w.folder().attr("python_layers");
  register_workload(std::move(made), 1000);
  for (const Layer* l : all_layers())
    if (l->folder_variant) register_variant(l->name, w.name(), [make = l->folder_variant, &w] { return make(w); });
  // The folder's own Python implementations, each a variant of its layer (python_layer.cpp).
  for (const auto& [layer, file] : own) {
    const std::string name = py::str(layer), path = py::str(file);
    if (!find_layer(name)) continue;  // a layer this build does not have: `list` says which there are
    register_variant(name, w.name(), python_folder_variant_factory(path, w));
  }
  if (!ec) registered->emplace(key, &w);
  return w;
}

}  // namespace lb

#endif  // LB_PYTHON_UNAVAILABLE
