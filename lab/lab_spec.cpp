#include "lab/lab_spec.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

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

LaunchShape parse_launch(const Fields& f, const json& launch, const std::string& workload) {
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
  if ((shape.grid == GridRule::kCoverMN) != (workload == "matmul"))
    f.fail("launch.grid", workload == "matmul" ? "matmul takes cover_mn" : "cover_mn is for matmul only");
  return shape;
}

std::vector<Tier> parse_tiers(const Fields& f, const json& tiers) {
  if (!tiers.is_array()) f.fail("tiers", "expected a list");
  std::vector<Tier> out;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const std::string at = "tiers[" + std::to_string(i) + "]";
    const json& t = tiers[i];
    if (!t.is_object() || !t.contains("fraction_of") || !t.contains("at_least") || !t.contains("points"))
      f.fail(at, "expected {fraction_of, at_least, points}");
    if (!t["fraction_of"].is_string()) f.fail(at + ".fraction_of", "expected a layer name");
    out.push_back({t["fraction_of"].get<std::string>(), f.number(at + ".at_least", t["at_least"], 0, 1e6),
                   f.integer(at + ".points", t["points"], 0, 1000)});
  }
  return out;
}

}  // namespace

const std::vector<std::string>& argument_vocabulary(const std::string& workload) {
  static const std::map<std::string, std::vector<std::string>> vocabulary = {
      {"vector_add", {"a", "b", "c", "n"}},
      {"saxpy", {"alpha", "x", "y", "n"}},
      {"reduce", {"x", "n", "out"}},
      {"matmul", {"A", "B", "C", "M", "N", "K"}}};
  static const std::vector<std::string> none;
  const auto it = vocabulary.find(workload);
  return it == vocabulary.end() ? none : it->second;
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
  const std::string workload = f.text("workload");
  if (argument_vocabulary(workload).empty() || !(spec.workload = find_workload(workload)))
    f.fail("workload", "expected one of vector_add, saxpy, reduce, matmul, got '" + workload + "'");
  spec.student_file = f.text("student_file");
  if (spec.student_file.find('/') != std::string::npos || spec.student_file.starts_with("."))
    f.fail("student_file", "expected a file name in the lab's folder");
  spec.kernel = f.text("kernel");
  spec.signature = f.text("signature");
  spec.arguments = f.strings("arguments", f.get("arguments"));
  const auto& vocabulary = argument_vocabulary(workload);
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    if (std::find(vocabulary.begin(), vocabulary.end(), spec.arguments[i]) == vocabulary.end()) {
      std::string names;
      for (const auto& v : vocabulary) names += (names.empty() ? "" : ", ") + v;
      f.fail("arguments[" + std::to_string(i) + "]",
             "'" + spec.arguments[i] + "' is not one of " + workload + "'s: " + names);
    }
  }
  const std::string starts = f.text("output_starts");
  if (starts != "poison" && starts != "zero") f.fail("output_starts", "expected poison or zero");
  spec.output_starts_zero = starts == "zero";
  spec.launch = parse_launch(f, f.get("launch"), workload);
  spec.check_size_texts = f.strings("check_sizes", f.get("check_sizes"));
  spec.check_sizes = f.sizes("check_sizes", spec.check_size_texts, *spec.workload);
  spec.benchmark_sizes = f.sizes("benchmark_sizes", f.strings("benchmark_sizes", f.get("benchmark_sizes")),
                                 *spec.workload);
  const json& points = f.get("points");
  if (!points.is_object() || !points.contains("check") || !points.contains("performance"))
    f.fail("points", "expected {check, performance}");
  spec.check_points = f.integer("points.check", points["check"], 0, 1000);
  spec.performance_points = f.integer("points.performance", points["performance"], 0, 1000);
  spec.tiers = parse_tiers(f, f.get("tiers"));
  spec.time_limit_s = f.number("time_limit_s", f.get("time_limit_s"), 0.1, 3600);
  return spec;
}

fs::path default_labs_dir() {
  if (const char* dir = std::getenv("LAYERBENCH_LABS"); dir && *dir) return dir;
  return fs::path(LB_SOURCE_ROOT) / "labs";
}

std::vector<LabSpec> all_labs(const fs::path& labs_dir) {
  std::vector<LabSpec> labs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(labs_dir, ec))
    if (entry.is_directory() && fs::exists(entry.path() / "lab.json")) labs.push_back(parse_lab_spec(entry.path() / "lab.json"));
  if (ec) throw UsageError("cannot read the labs folder " + labs_dir.string() + ": " + ec.message());
  std::sort(labs.begin(), labs.end(), [](const LabSpec& a, const LabSpec& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return labs;
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
