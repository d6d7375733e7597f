#include "lab/spec/lab_spec.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "common/data_root.h"
#include "harness/sizes.h"  // parse_shape
#include "lab/runners/runner.h"
#include "variants/python/workload_folder.h"  // register_workload_folder, workload_folders_unavailable_reason

namespace lb::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Reads fields of one lab.json; every failure names the file and the field.
class Fields {
 public:
  Fields(fs::path file, json root) : file_(std::move(file)), root_(std::move(root)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw LabSpecError(file_.string() + ": field '" + field + "': " + why);
  }
  const json& get(const std::string& field) const {
    if (!root_.contains(field)) fail(field, "missing");
    return root_.at(field);
  }
  std::string text(const std::string& field) const {
    const json& v = get(field);
    if (!v.is_string() || v.get<std::string>().empty()) fail(field, "expected a non-empty string");
    return v.get<std::string>();
  }
  double number(const std::string& field, const json& v, double lo, double hi) const {
    if (!v.is_number()) fail(field, "expected a number");
    const double x = v.get<double>();
    if (x < lo || x > hi) fail(field, "expected a number from " + fmt(lo) + " to " + fmt(hi) + ", got " + fmt(x));
    return x;
  }
  int integer(const std::string& field, const json& v, int lo, int hi) const {
    if (!v.is_number_integer()) fail(field, "expected an integer");
    return static_cast<int>(number(field, v, lo, hi));
  }
  std::vector<std::string> strings(const std::string& field, const json& v) const {
    if (!v.is_array() || v.empty()) fail(field, "expected a non-empty list of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) fail(field + "[" + std::to_string(i) + "]", "expected a string");
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  std::vector<Shape> sizes(const std::string& field, const std::vector<std::string>& texts,
                           const Workload& workload) const {
    std::vector<Shape> out;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      try {
        out.push_back(parse_shape(texts[i], workload));
      } catch (const UsageError& e) {
        fail(field + "[" + std::to_string(i) + "]", e.what());
      }
    }
    return out;
  }

 private:
  static std::string fmt(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  }
  fs::path file_;
  json root_;
};

LaunchShape parse_launch(const Fields& f, const json& launch, const Workload& workload) {
  if (!launch.is_object()) f.fail("launch", "expected an object with block and grid");
  LaunchShape shape;
  const json& block = launch.contains("block") ? launch["block"] : json();
  if (!block.is_array() || block.empty() || block.size() > 2) f.fail("launch.block", "expected [x] or [x, y]");
  shape.block_x = static_cast<unsigned>(f.integer("launch.block[0]", block[0], 1, 1024));
  if (block.size() == 2) shape.block_y = static_cast<unsigned>(f.integer("launch.block[1]", block[1], 1, 1024));
  if (shape.block_x * shape.block_y > 1024) f.fail("launch.block", "more than 1024 threads per block");
  const json& grid = launch.contains("grid") ? launch["grid"] : json();
  static const std::map<std::string, GridRule> rules = {
      {"cover_n", GridRule::kCoverN}, {"grid_stride", GridRule::kGridStride}, {"cover_mn", GridRule::kCoverMN}};
  if (!grid.is_string() || !rules.contains(grid.get<std::string>()))
    f.fail("launch.grid", "expected one of cover_n, grid_stride, cover_mn");
  shape.grid = rules.at(grid.get<std::string>());
  // cover_mn covers rows and columns: the rule of a workload whose size has them, and its only one.
  const bool has_rows = workload.size_form() != SizeForm::kCount;
  if ((shape.grid == GridRule::kCoverMN) != has_rows)
    f.fail("launch.grid", has_rows ? workload.name() + "'s size is " + to_string(workload.size_form()) +
                                         ": it takes cover_mn"
                                   : "cover_mn is for a workload sized MxN or MxNxK; " + workload.name() +
                                         "'s size is n (cover_n or grid_stride)");
  return shape;
}

std::vector<Tier> parse_tiers(const Fields& f, const json& tiers, const Layer& baseline) {
  if (!tiers.is_array()) f.fail("tiers", "expected a list");
  std::vector<Tier> out;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const std::string at = "tiers[" + std::to_string(i) + "]";
    const json& t = tiers[i];
    if (!t.is_object() || !t.contains("fraction_of") || !t.contains("at_least") || !t.contains("points"))
      f.fail(at, "expected {fraction_of, at_least, points}");
    if (!t["fraction_of"].is_string()) f.fail(at + ".fraction_of", "expected a layer name");
    // A tier is a fraction of the one kernel the grade times beside the student's: the baseline's.
    if (find_layer(t["fraction_of"].get<std::string>()) != &baseline)
      f.fail(at + ".fraction_of", "expected the baseline layer '" + baseline.name + "', got '" +
                                      one_line(t["fraction_of"].get<std::string>()) + "'");
    out.push_back({t["fraction_of"].get<std::string>(), f.number(at + ".at_least", t["at_least"], 0, 1e6),
                   f.integer(at + ".points", t["points"], 0, 1000)});
  }
  return out;
}

// A workload registered from a folder: a lab names it by its folder (workload_dir), not its name.
bool from_a_folder(const Workload& w) { return dynamic_cast<const FolderWorkload*>(&w) != nullptr; }

// The workloads a lab can name: the built-in ones whose descriptor names their kernel's parameters.
std::string lab_workload_names() {
  std::string names;
  for (const Workload* w : all_workloads())
    if (!w->descriptor().kernel_args.empty() && !from_a_folder(*w)) names += (names.empty() ? "" : ", ") + w->name();
  return names;
}

// How a parameter of the workload's kernel is passed, from its C type; nullopt when the runner
// has no way to pass that type.
std::optional<PassedAs> passed_as(const KernelArg& arg) {
  if (arg.kind == ArgKind::kInput || arg.kind == ArgKind::kOutput)
    return arg.type.ends_with("*") ? std::optional(PassedAs::kPointer) : std::nullopt;
  if (arg.type == "float") return PassedAs::kFloat;
  if (arg.type == "int") return PassedAs::kInt;
  if (arg.type == "long long") return PassedAs::kLongLong;
  return std::nullopt;
}

// The spec's `arguments`, each one of the workload's kernel_args by name, as the runner binds it.
std::vector<BoundArgument> bind_arguments(const Fields& f, const std::vector<std::string>& arguments,
                                          const Workload& workload) {
  const WorkloadDescriptor& d = workload.descriptor();
  std::vector<BoundArgument> bound;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string field = "arguments[" + std::to_string(i) + "]";
    const auto found = std::find_if(d.kernel_args.begin(), d.kernel_args.end(),
                                    [&](const KernelArg& a) { return a.name == arguments[i]; });
    if (found == d.kernel_args.end()) {
      std::string names;
      for (const KernelArg& a : d.kernel_args) names += (names.empty() ? "" : ", ") + a.name;
      f.fail(field, "'" + one_line(arguments[i]) + "' is not one of " + workload.name() + "'s: " + names);
    }
    // What the descriptor says must be something the runner can pass (a workload's bug, not the lab's).
    const std::optional<PassedAs> as = passed_as(*found);
    if (!as)
      f.fail(field, "'" + found->name + "' of " + workload.name() + " is a '" + found->type +
                        "', which the runner cannot pass (pointers, float, int, long long)");
    if (found->kind == ArgKind::kInput && (found->input < 0 || static_cast<std::size_t>(found->input) >= d.inputs.size()))
      f.fail(field, "'" + found->name + "' reads input " + std::to_string(found->input) + ", which " + workload.name() +
                        " does not have");
    bound.push_back({*found, *as});
  }
  return bound;
}

// The spec's runner, or the one its student file implies when absent; its file must have the
// runner's extension.
const Runner* parse_runner(const Fields& f, const json& root, const std::string& student_file) {
  if (!root.contains("runner")) {
    const Runner* runner = default_runner_for(student_file);
    if (!runner) f.fail("student_file", "no runner takes '" + one_line(student_file) + "' (give \"runner\")");
    return runner;
  }
  const std::string name = f.text("runner");
  const Runner* runner = find_runner(name);
  if (!runner) f.fail("runner", "expected one of " + runner_names() + ", got '" + one_line(name) + "'");
  if (!student_file.ends_with(runner->extension()))
    f.fail("student_file", "the " + name + " runner takes a " + runner->extension() + " file, got '" + student_file + "'");
  return runner;
}

// The layer whose kernel the student's is timed against: a GPU layer with a variant of the workload.
const Layer* baseline_layer(const Fields& f, const std::string& name, const Workload& workload) {
  const Layer* layer = find_layer(name);
  if (!layer) f.fail("baseline_layer", "no layer named '" + one_line(name) + "' (see layerbench list)");
  if (!layer->on_gpu)
    f.fail("baseline_layer", "the " + name + " layer runs on the CPU; the student's kernel is timed against a GPU layer's");
  if (!find_variant(name, workload.name()))
    f.fail("baseline_layer", "the " + name + " layer has no " + workload.name() + " variant to time against");
  return layer;
}

// The workload: a built-in one by name ("workload"), or a workload folder ("workload_dir", relative
// to the lab's folder), registered as `run --workload-dir` registers it (again for the same folder
// is the same workload). Exactly one of the two.
void parse_workload(const Fields& f, const json& root, LabSpec& spec) {
  const bool named = root.contains("workload"), folder = root.contains("workload_dir");
  if (named && folder) f.fail("workload_dir", "give workload (a built-in workload) or workload_dir (a workload folder), not both");
  if (!named && !folder)
    f.fail("workload", "missing (give workload, one of " + lab_workload_names() + ", or workload_dir, a workload folder)");
  if (named) {
    const std::string workload = f.text("workload");
    spec.workload = find_workload(workload);
    if (spec.workload && from_a_folder(*spec.workload))
      f.fail("workload", "'" + workload + "' is a workload folder's: give its folder as workload_dir");
    if (!spec.workload || spec.workload->descriptor().kernel_args.empty())
      f.fail("workload", "expected one of " + lab_workload_names() + ", got '" + one_line(workload) + "'");
    return;
  }
  const fs::path dir = fs::absolute(spec.dir / f.text("workload_dir")).lexically_normal();
  if (const std::string why = workload_folders_unavailable_reason(); !why.empty())
    f.fail("workload_dir", "this layerbench cannot read a workload folder: " + one_line(why));
  try {
    spec.folder = &register_workload_folder(dir.string());
  } catch (const UsageError& e) {  // the folder's own one line: its file and field
    f.fail("workload_dir", one_line(e.what()));
  }
  spec.workload = spec.folder;
}

// A folder lab's kernel, its parameters and its launch are the folder's workload.json's: lab.json
// giving them again could only disagree with the kernel that "ours" runs.
void take_from_folder(const Fields& f, const json& root, LabSpec& spec) {
  for (const char* field : {"kernel", "signature", "arguments", "output_starts", "launch"})
    if (root.contains(field))
      f.fail(field, std::string("a lab on a workload folder takes it from ") + spec.folder->spec().dir +
                        "/workload.json: remove it");
  if (!spec.runner->runs_folder_workloads())
    f.fail("runner", "the " + spec.runner->name() + " runner cannot run a lab on a workload folder (workload_dir); " +
                         "the nvrtc runner can");
  const FolderSpec& folder = spec.folder->spec();
  // The student writes one kernel: a folder whose workload launches a sequence is no lab's (yet).
  if (folder.kernels.size() != 1)
    f.fail("workload_dir", folder.dir + "/workload.json launches " + std::to_string(folder.kernels.size()) +
                               " kernels; a lab's student writes one (a folder with kernel and launch)");
  const FolderKernel& kernel = folder.kernels.front();
  spec.kernel = kernel.name;
  spec.signature = "void " + kernel.name + "(";
  for (const KernelArg& a : spec.folder->descriptor().kernel_args) {
    spec.arguments.push_back(a.name);
    spec.signature += (spec.arguments.size() > 1 ? ", " : "") + a.type + " " + a.name;
  }
  spec.signature += ")";
  spec.launch.block_x = kernel.launch.block[0];
  spec.launch.block_y = kernel.launch.block[1];
}

}  // namespace

std::string check_size_label(const LabSpec& spec, std::size_t i) {
  const std::string label = spec.workload->size_label(spec.check_sizes[i]);
  std::string text = std::string(to_string(spec.workload->size_form())) + " = " + label;
  if (spec.check_size_texts[i] != label) text += " (" + spec.check_size_texts[i] + ")";
  return text;
}


HostBuffer starting_output(const LabSpec& spec, const HostProblem& problem) {
  return spec.output_starts_zero ? HostBuffer(problem.output.size(), 0.0f) : problem.output;
}

LabSpec parse_lab_spec(const fs::path& lab_json) {
  std::ifstream in(lab_json);
  if (!in) throw LabSpecError(lab_json.string() + ": cannot be read");
  json root;
  try {
    root = json::parse(in, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    throw LabSpecError(lab_json.string() + ": not valid JSON (" + e.what() + ")");
  }
  if (!root.is_object()) throw LabSpecError(lab_json.string() + ": expected a JSON object");
  const Fields f(lab_json, root);

  LabSpec spec;
  spec.dir = lab_json.parent_path();
  spec.name = fs::absolute(lab_json).parent_path().filename().string();
  spec.title = f.text("title");
  spec.order = f.integer("order", f.get("order"), 0, 1000000);
  parse_workload(f, root, spec);
  spec.student_file = f.text("student_file");
  if (spec.student_file.find('/') != std::string::npos || spec.student_file.starts_with("."))
    f.fail("student_file", "expected a file name in the lab's folder");
  spec.runner = parse_runner(f, root, spec.student_file);
  if (spec.folder) {
    take_from_folder(f, root, spec);
  } else {
    spec.kernel = f.text("kernel");
    spec.signature = f.text("signature");
    spec.arguments = f.strings("arguments", f.get("arguments"));
    spec.bound_arguments = bind_arguments(f, spec.arguments, *spec.workload);
    const std::string starts = f.text("output_starts");
    if (starts != "poison" && starts != "zero") f.fail("output_starts", "expected poison or zero");
    spec.output_starts_zero = starts == "zero";
    if (spec.runner->takes_launch()) spec.launch = parse_launch(f, f.get("launch"), *spec.workload);
    else if (root.contains("launch"))
      f.fail("launch", "the " + spec.runner->name() + " runner's student launches their own kernels: no launch");
    if (const std::string why = spec.runner->arguments_error(spec.bound_arguments); !why.empty()) f.fail("arguments", why);
  }
  spec.check_size_texts = f.strings("check_sizes", f.get("check_sizes"));
  spec.check_sizes = f.sizes("check_sizes", spec.check_size_texts, *spec.workload);
  spec.benchmark_sizes = f.sizes("benchmark_sizes", f.strings("benchmark_sizes", f.get("benchmark_sizes")),
                                 *spec.workload);
  const json& points = f.get("points");
  if (!points.is_object() || !points.contains("check") || !points.contains("performance"))
    f.fail("points", "expected {check, performance}");
  spec.check_points = f.integer("points.check", points["check"], 0, 1000);
  spec.performance_points = f.integer("points.performance", points["performance"], 0, 1000);
  spec.baseline = baseline_layer(f, f.text("baseline_layer"), *spec.workload);
  spec.tiers = parse_tiers(f, f.get("tiers"), *spec.baseline);
  spec.time_limit_s = f.number("time_limit_s", f.get("time_limit_s"), 0.1, 3600);
  return spec;
}

fs::path default_labs_dir() {
  if (const char* dir = std::getenv("LAYERBENCH_LABS"); dir && *dir) return dir;
  return data_root() / "labs";  // common/data_root.h
}

namespace {

// A lab on a workload folder is read through the embedded interpreter and workload_folder.py (NumPy):
// where they are missing (a build without Python layers, a CPU-only pip install) the other labs are
// listed, and find_lab refuses this one saying why.
bool needs_the_missing_interpreter(const fs::path& lab_json) {
  if (workload_folders_unavailable_reason().empty()) return false;
  std::ifstream in(lab_json);
  const json root = json::parse(in, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  return root.is_object() && root.contains("workload_dir");
}

}  // namespace

namespace {

// The lab.json of each lab folder under labs_dir, in no order; UsageError when the folder cannot be read.
std::vector<fs::path> lab_files(const fs::path& labs_dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(labs_dir, ec))
    if (entry.is_directory() && fs::exists(entry.path() / "lab.json")) files.push_back(entry.path() / "lab.json");
  if (ec) throw UsageError("cannot read the labs folder " + labs_dir.string() + ": " + ec.message());
  return files;
}

void sort_labs(std::vector<LabSpec>& labs) {
  std::sort(labs.begin(), labs.end(), [](const LabSpec& a, const LabSpec& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
}

}  // namespace

std::vector<LabSpec> all_labs(const fs::path& labs_dir) {
  std::vector<LabSpec> labs;
  for (const fs::path& lab_json : lab_files(labs_dir))
    if (!needs_the_missing_interpreter(lab_json)) labs.push_back(parse_lab_spec(lab_json));
  sort_labs(labs);
  return labs;
}

LabsRead read_labs(const fs::path& labs_dir) {
  LabsRead read;
  const std::string no_interpreter = workload_folders_unavailable_reason();
  for (const fs::path& lab_json : lab_files(labs_dir)) {
    const std::string name = lab_json.parent_path().filename().string();
    if (needs_the_missing_interpreter(lab_json)) {
      read.left_out.push_back({name, "its workload folder cannot be read here: " + no_interpreter});
      continue;
    }
    try {
      read.labs.push_back(parse_lab_spec(lab_json));
    } catch (const std::exception& e) {  // LabSpecError, or its workload folder's reader (UsageError)
      read.left_out.push_back({name, e.what()});
    }
  }
  sort_labs(read.labs);
  std::sort(read.left_out.begin(), read.left_out.end(),
            [](const LeftOutLab& a, const LeftOutLab& b) { return a.name < b.name; });
  return read;
}

LabSpec find_lab(const fs::path& labs_dir, const std::string& which) {
  // A number names the lab whose folder starts with it: "1", "01" -> 01-...
  const bool numeric = !which.empty() && which.size() <= 6 && std::all_of(which.begin(), which.end(), ::isdigit);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(labs_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || !fs::exists(entry.path() / "lab.json")) continue;
    bool match = name == which;
    if (numeric) {
      const std::size_t digits = name.find_first_not_of("0123456789");
      const std::string prefix = name.substr(0, digits);
      match = !prefix.empty() && std::stol(prefix) == std::stol(which);
    }
    if (match) return parse_lab_spec(entry.path() / "lab.json");
  }
  if (ec) throw UsageError("cannot read the labs folder " + labs_dir.string() + ": " + ec.message());
  throw UsageError("unknown lab '" + which + "' (see layerbench lab list)");
}

}  // namespace lb::lab
