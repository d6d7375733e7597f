// The adapter between the harness and Python variants: one embedded CPython interpreter per
// process, the layers' imports, a LayerSession that owns the layer's Python Session, and a C++
// Variant that calls a Python object's methods through the boundary the Python labs share
// (python_object.h).
#include "variants/python/python_layer.h"

#include <pybind11/embed.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "common/cuda_check.h"
#include "common/elapsed.h"
#include "common/data_root.h"
#include "common/gpu.h"
#include "common/python_interpreter.h"
#include "variants/python/python_folder.h"
#include "variants/python/python_object.h"
#include "variants/variant.h"
#include <nlohmann/json.hpp>

namespace py = pybind11;

namespace lb {
namespace {

namespace fs = std::filesystem;
using python::checked;
using python::python_error_line;

std::string capture_output(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), buffer.size(), pipe)) out += buffer.data();
    if (pclose(pipe) != 0) out.clear();
  }
  return out;
}

// One interpreter per process (CPython allows one), started on first use and never finalized:
// libraries that Python layers load (CUDA ones among them) are not torn down before the process's
// own exit handlers run.
struct Interpreter {
  std::string executable;          // the interpreter whose sys.path is used
  std::string version;             // "3.12"
  std::string unavailable_reason;  // empty when it started
  double start_ms = 0;             // start, sys.path set up
};

const Interpreter& interpreter() {
  static const Interpreter it = [] {
    Interpreter i;
    i.executable = chosen_python();  // common/python_interpreter.h: the one `layerbench report` runs
    i.version = std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);
    const auto t0 = std::chrono::steady_clock::now();
    // Its search path, one entry a line; this binary embeds the libpython it was built with, so
    // packages built for another Python version would not load: the versions must agree.
    const std::string out = capture_output(
        "'" + i.executable + "' -c 'import sys; print(\"%d.%d\" % sys.version_info[:2]); "
        "print(*[p for p in sys.path if p], sep=chr(10))' 2>/dev/null");
    const auto first_newline = out.find('\n');
    if (out.empty() || first_newline == std::string::npos) {
      i.unavailable_reason = "cannot run the Python interpreter '" + i.executable + "' (set $LAYERBENCH_PYTHON)";
      return i;
    }
    if (const std::string found = out.substr(0, first_newline); found != i.version) {
      i.unavailable_reason = "'" + i.executable + "' is Python " + found + ", but layerbench was built with Python " +
                             i.version + " (rebuild, or set $LAYERBENCH_PYTHON)";
      return i;
    }
    py::initialize_interpreter(/*init_signal_handlers=*/false);  // Ctrl-C stays the harness's
    // The chosen interpreter's search path first (a .venv's packages before the base Python's),
    // then what the embedded one found by itself, then lb_shared's folder.
    py::list path;
    std::size_t start = first_newline + 1;
    for (std::size_t end; (end = out.find('\n', start)) != std::string::npos; start = end + 1)
      path.append(out.substr(start, end - start));
    for (const py::handle entry : py::module_::import("sys").attr("path"))
      if (!path.contains(entry)) path.append(entry);
    path.append((data_root() / "variants" / "python").string());
    path.append(native_module_dir().string());  // extension modules this build made (variants/cython)
    py::module_::import("sys").attr("path") = path;
    py::module_::import("lb_shared");  // imports the layers' packages (import_quietly), and lb_native
    i.start_ms = ms_since(t0);
    return i;
  }();
  return it;
}

// Each module imported once per process, as Python itself does; the time of that import is the
// one-time cost of every layer that needs it.
struct Import {
  std::string error;  // empty when it imported
  double ms = 0;
};
const Import& import_once(const std::string& module) {
  static std::map<std::string, Import> imports;
  auto [it, inserted] = imports.try_emplace(module);
  if (inserted) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      py::module_::import("lb_shared").attr("import_quietly")(module);
    } catch (py::error_already_set& e) {
      it->second.error = python_error_line(e);
    }
    it->second.ms = ms_since(t0);
  }
  return it->second;
}

// The package of `module` when it is not installed at all ("pycuda", "cuda.bindings"), else empty;
// found without importing it (lb_shared.missing_package), once per module.
const std::string& missing_package(const std::string& module) {
  static std::map<std::string, std::string> missing;
  auto [it, inserted] = missing.try_emplace(module);
  if (inserted) {
    try {
      it->second = py::module_::import("lb_shared").attr("missing_package")(module).cast<std::string>();
    } catch (py::error_already_set& e) {
      it->second = module + " (" + python_error_line(e) + ")";
    }
  }
  return it->second;
}

// Without a GPU, a GPU layer is unavailable for the GPU's reason, the one every GPU layer gives,
// and the layer's imports are not tried: some fail for want of the driver (PyCUDA's: "ImportError:
// libcuda.so.1: cannot open shared object file"), which is that same reason, not one of the layer's.
// What is the layer's own (its package not installed, no interpreter) follows it, after "; ", so
// that the run's one line about the GPU layers (print_plan_notes) folds it in:
// "no CUDA driver (libcuda.so.1 not found); pycuda also not installed".
std::string unavailable_reason(const PythonLayer& layer) {
  const std::string gpu = layer.on_gpu ? gpu_unavailable_reason() : std::string();
  if (const std::string& why = interpreter().unavailable_reason; !why.empty())
    return gpu.empty() ? why : gpu + "; the Python layers also unavailable: " + why;
  if (!gpu.empty()) {
    for (const std::string& module : layer.modules)
      if (const std::string& package = missing_package(module); !package.empty())
        return gpu + "; " + package + " also not installed";
    return gpu;
  }
  for (const std::string& module : layer.modules)
    if (const Import& i = import_once(module); !i.error.empty())
      return "import " + module + " failed (" + interpreter().executable + "): " + i.error;
  return std::string();
}

// The layer's folder on sys.path, so that its support module (variants/<layer>/_<name>.py) can be
// imported by its variants and by the adapter.
void add_layer_path(const PythonLayer& layer) {
  py::list path = py::module_::import("sys").attr("path");
  if (const std::string dir = (data_root() / layer.dir).string(); !path.contains(dir)) path.append(dir);
}

// Which CUDA libraries the layer loaded (versions, paths), from its support module's libraries();
// null where the layer has none or cannot run here.
nlohmann::json libraries(const PythonLayer& layer) {
  if (layer.libraries_from.empty() || !unavailable_reason(layer).empty()) return nullptr;
  add_layer_path(layer);
  try {
    const py::object found = py::module_::import(layer.libraries_from.c_str()).attr("libraries")();
    return nlohmann::json::parse(py::module_::import("json").attr("dumps")(found).cast<std::string>());
  } catch (py::error_already_set& e) {
    return {{"error", python_error_line(e)}};
  }
}

// variants/<layer>/folder_kernel.py: the layer's variant of any workload folder (not named
// workload_folder.py: the layer's folder is on sys.path, where it would hide workloads/folder's).
constexpr const char* kFolderVariantFile = "folder_kernel";

// True the first time `what` is asked for in this process: a cost shared by every Python layer
// (the interpreter's start, an import that several layers make) is recorded once, by the first
// layer that paid it, so that a report summing one-time costs counts it once.
bool first_time_in_process(const std::string& what) {
  static std::set<std::string> paid;
  return paid.insert(what).second;
}

// The layer's support module, variants/<layer>/_<layer>_layer.py ("cuda-core": _cuda_core_layer),
// where the layer has one; empty where not.
std::string support_module(const PythonLayer& layer) {
  std::string name = "_" + layer.name + "_layer";
  for (char& c : name)
    if (c == '-') c = '_';
  return fs::exists(data_root() / layer.dir / (name + ".py")) ? name : std::string();
}

// What a Python layer keeps for one run: its variant modules, loaded from their files once, and its
// Python session (lb_variant.Session), whose lifetime is this object's: made here, from the support
// module's `Session` class where it has one (else lb_variant.Session), with the run's LayerConfig
// (the kernel cache); closed and dropped in the destructor, when the harness closes the session.
class PythonSession final : public LayerSession {
 public:
  PythonSession(PythonLayer layer, const LayerConfig& config, CostLog& costs) : layer_(std::move(layer)) {
    if (const std::string why = unavailable_reason(layer_); !why.empty()) throw std::runtime_error(why);
    add_layer_path(layer_);
    if (first_time_in_process("interpreter"))
      costs.add("Python interpreter start, once per process (" + interpreter().executable + ")", interpreter().start_ms);
    for (const std::string& module : layer_.modules)
      if (first_time_in_process("import " + module))
        costs.add("import " + module + ", once per process", import_once(module).ms);
    const std::string support = support_module(layer_);
    session_ = checked(layer_.name + " session", [&] {
      // The driver layer's cache (variants/nvrtc/kernel_cache.h): "" is its default folder.
      const py::object cache =
          py::module_::import("lb_native").attr("KernelCache")(config.kernel_cache_dir, config.kernel_cache_enabled);
      const py::module_ variant = py::module_::import("lb_variant");
      const py::object python_config = variant.attr("LayerConfig")(layer_.name, cache);
      py::object session_class = variant.attr("Session");
      if (!support.empty()) {
        const py::module_ module = py::module_::import(support.c_str());
        if (py::hasattr(module, "Session")) session_class = module.attr("Session");
      }
      return session_class(python_config);
    });
  }
  // close() where the session defines it; an exception it raises cannot fail the run, which is
  // over: it is printed, as Python prints an exception in a __del__.
  ~PythonSession() override {
    try {
      if (py::hasattr(session_, "close")) session_.attr("close")();
    } catch (py::error_already_set& e) {
      std::fprintf(stderr, "layerbench: warning: the %s layer's session did not close: %s\n", layer_.name.c_str(),
                   python_error_line(e).c_str());
    } catch (const std::exception& e) {  // a destructor throws nothing
      std::fprintf(stderr, "layerbench: warning: the %s layer's session did not close: %s\n", layer_.name.c_str(),
                   e.what());
    }
    session_ = py::object();  // dropped now: what it held goes with it (unless a variant still holds it)
  }
  // The Variant class of `file` (variants/<layer>/<workload>.py, or a workload folder's own
  // cupy.py, ...), its module loaded once per session. A user's file (`user_file`) is compiled from
  // its text by workload_folder.py, which writes no __pycache__ into the user's folder.
  py::object variant_class(const std::string& file, bool user_file = false) {
    py::object& module = modules_[file];
    if (!module) {
      module = checked(file, [&] {
        const std::string stem = fs::path(file).stem().string();
        if (user_file)
          return py::module_::import("workload_folder").attr("load_user_module")(py::module_::import("pathlib").attr("Path")(file),
                                                                             layer_.name + "_" + stem);
        py::module_ util = py::module_::import("importlib.util");
        py::object spec = util.attr("spec_from_file_location")("lb_" + layer_.name + "_" + stem, file);
        py::object loaded = util.attr("module_from_spec")(spec);
        spec.attr("loader").attr("exec_module")(loaded);
        return loaded;
      });
    }
    return checked(file, [&] { return module.attr("Variant"); });
  }
  std::string variant_file(const std::string& workload) const {
    return (data_root() / layer_.dir / (workload + ".py")).string();
  }
  const py::object& session() const { return session_; }
  // The modules, and what the Python session says of itself where it has a describe() (a dict):
  // the settings it chose on purpose (a framework's allocator and compile caches, say). A describe()
  // that fails is recorded as its error: the results are written all the same.
  nlohmann::json describe() const override {
    nlohmann::json described = {{"modules", layer_.modules}};
    if (!session_ || !py::hasattr(session_, "describe")) return described;
    try {
      const py::object said = session_.attr("describe")();
      described.update(nlohmann::json::parse(py::module_::import("json").attr("dumps")(said).cast<std::string>()));
    } catch (py::error_already_set& e) {
      described["describe_error"] = python_error_line(e);
    } catch (const std::exception& e) {  // a dict that is not JSON
      described["describe_error"] = e.what();
    }
    return described;
  }

 private:
  PythonLayer layer_;
  std::map<std::string, py::object> modules_;
  py::object session_;
};

// Calls the Python object's methods (python::VariantObject); every Python exception becomes this
// case's failure, or its skip for an out-of-memory error. A folder workload's variant (read from
// `file`: the layer's folder_kernel.py or the folder's own cupy.py, ...) talks in the folder's
// terms: setup.workload is its WorkloadFolder, upload() gets buffers by name and typed, download()
// a dict of the outputs to fill.
class PythonVariant final : public Variant {
 public:
  explicit PythonVariant(std::string workload) : workload_(std::move(workload)) {}
  PythonVariant(std::string file, const FolderWorkload& folder, bool user_file)
      : file_(std::move(file)), folder_(&folder), user_file_(user_file) {}
  ~PythonVariant() override = default;
  void allocate(const Shape& s, const Setup& setup) override {
    PythonSession& session = setup.session_as<PythonSession>();  // the interpreter runs from here on
    costs_ = setup.costs;
    shape_ = s;
    shared_ = py::module_::import("lb_shared");
    notes_ = py::list();
    const std::string file = folder_ ? file_ : session.variant_file(workload_);
    const std::string what = fs::path(file).filename().string();
    py::object made;
    noting([&] { made = checked(what + " Variant()", [&] { return session.variant_class(file, user_file_)(); }); });
    object_ = python::VariantObject(std::move(made), what,
                                    /*hook=*/{}, [this](const std::function<void()>& call) { noting(call); });
    object_.allocate(s, setup.stream, setup.costs, session.session(),
                     folder_ ? python::folder_object(*folder_) : py::none());
  }
  void upload(const HostProblem& p, cudaStream_t stream) override {
    if (folder_) object_.call("upload", python::folder_problem(*folder_, p), python::stream_handle(stream));
    else object_.upload(p, stream);
  }
  void run(cudaStream_t stream) override { object_.run(stream); }
  void download(std::span<float> out, cudaStream_t stream) override {
    if (folder_) object_.call("download", python::folder_outputs(*folder_, shape_, out), python::stream_handle(stream));
    else object_.download(out, stream);
  }
  bool run_waits() const override { return object_.run_waits(); }

 private:
  // Runs `call` with lb_shared.case_notes set to this case's list: a library's performance warning
  // raised meanwhile (Numba's "Grid size 1 will likely result in GPU under-utilization ...") goes
  // there instead of the console, and from there into this case's notes (CostLog::note).
  void noting(const std::function<void()>& call) {
    struct Collect {
      PythonVariant& variant;
      ~Collect() { variant.collect_notes(); }
    } collect{*this};
    shared_.attr("case_notes") = notes_;
    call();
  }
  void collect_notes() noexcept {
    try {
      shared_.attr("case_notes") = py::none();
      if (py::len(notes_) == 0) return;
      for (const py::handle note : notes_)
        if (costs_) costs_->note(py::str(note).cast<std::string>());
      notes_.attr("clear")();
    } catch (...) {  // a note lost, never the case
      PyErr_Clear();
    }
  }
  std::string workload_;
  std::string file_;                       // a folder workload's variant file
  const FolderWorkload* folder_ = nullptr;  // a folder workload's; null for a built-in workload
  bool user_file_ = false;                  // file_ is the folder's own (cupy.py, ...), not ours
  Shape shape_;
  python::VariantObject object_;
  CostLog* costs_ = nullptr;
  py::object shared_;  // lb_shared
  py::object notes_;   // this case's notes, a list, until collected
};

// The registered Python layers by name (python_layer_libraries).
std::map<std::string, PythonLayer>& registered_python_layers() {
  static std::map<std::string, PythonLayer> layers;
  return layers;
}

}  // namespace

std::string embedded_python_unavailable_reason() { return interpreter().unavailable_reason; }

std::string python_layers_built_without() { return std::string(); }

VariantFactory python_folder_variant_factory(const std::string& file, const FolderWorkload& w) {
  return [file, &w] { return std::unique_ptr<Variant>(new PythonVariant(file, w, /*user_file=*/true)); };
}

bool register_python_layer(PythonLayer layer) {
  registered_python_layers()[layer.name] = layer;
  const fs::path dir = data_root() / layer.dir;
  // The layer's generic variant of a workload folder (run --workload-dir): the folder's kernel text
  // through the layer's own compiler; a file of that name is not a workload's variant.
  const fs::path folder_file = dir / (std::string(kFolderVariantFile) + ".py");
  std::function<std::unique_ptr<Variant>(const FolderWorkload&)> folder_variant;
  if (fs::exists(folder_file))
    folder_variant = [file = folder_file.string()](const FolderWorkload& w) {
      return std::unique_ptr<Variant>(new PythonVariant(file, w, /*user_file=*/false));
    };
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".py" && entry.path().stem().string()[0] != '_' &&
        entry.path().stem() != kFolderVariantFile) {
      const std::string workload = entry.path().stem().string();
      register_variant(layer.name, workload, [workload] { return std::unique_ptr<Variant>(new PythonVariant(workload)); });
    }
  return register_layer(Layer{
      .name = layer.name,
      .summary = layer.summary,
      .on_gpu = layer.on_gpu,
      .timing = layer.timing,
      .rank = layer.rank,
      .unavailable_reason = [layer] { return unavailable_reason(layer); },
      .describe =
          [layer] {
            return nlohmann::json{{"language", "Python"},
                                  {"python", {{"executable", interpreter().executable}, {"version", interpreter().version}}},
                                  {"libraries", libraries(layer)}};
          },
      .open_session = [layer](const LayerConfig& config, CostLog& costs) -> std::unique_ptr<LayerSession> {
        return std::make_unique<PythonSession>(layer, config, costs);
      },
      .not_provided = layer.not_provided,
      .changes_context = layer.changes_context,
      .folder_variant = folder_variant,
  });
}

std::optional<EmbeddedPython> embedded_python() {
  return EmbeddedPython{interpreter().executable, interpreter().version};
}

std::vector<PythonLibrary> python_layer_libraries(const std::string& name) {
  const auto found = registered_python_layers().find(name);
  if (found == registered_python_layers().end()) return {};
  const nlohmann::json all = libraries(found->second);  // {name: {version, path, found_via | error}}, or {error}
  std::vector<PythonLibrary> list;
  if (!all.is_object()) return list;
  for (const auto& [library, info] : all.items()) {
    const auto text = [&info](const char* key) {
      if (!info.is_object() || !info.contains(key)) return std::string();
      return info[key].is_string() ? info[key].get<std::string>() : info[key].dump();
    };
    PythonLibrary l{.name = library, .version = text("version"), .path = text("path"),
                    .found_via = text("found_via"), .error = text("error")};
    if (!info.is_object()) l.error = info.is_string() ? info.get<std::string>() : info.dump();
    list.push_back(std::move(l));
  }
  return list;
}

}  // namespace lb
