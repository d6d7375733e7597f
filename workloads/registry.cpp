#include <algorithm>
#include <stdexcept>

#include "workloads/workload.h"

namespace lb {
namespace {
struct Entry {
  int rank;
  std::unique_ptr<Workload> workload;
};
std::vector<Entry>& entries() {
  static std::vector<Entry> registry;
  return registry;
}
}  // namespace

bool register_workload(std::unique_ptr<Workload> workload, int rank) {
  auto& all = entries();
  all.push_back({rank, std::move(workload)});
  std::stable_sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.rank < b.rank; });
  return true;
}

std::vector<const Workload*> all_workloads() {
  std::vector<const Workload*> view;
  for (const auto& e : entries()) view.push_back(e.workload.get());
  return view;
}

const Workload* find_workload(const std::string& name) {
  for (const auto& e : entries())
    if (e.workload->name() == name) return e.workload.get();
  return nullptr;
}

const char* to_string(Figure figure) {
  switch (figure) {
    case Figure::kBandwidth: return "gbps";
    case Figure::kCompute: return "gflops";
    case Figure::kLaunchTime: return "us_per_launch";
  }
  return "?";
}

const char* to_string(Dim dim) {
  switch (dim) {
    case Dim::kM: return "m";
    case Dim::kN: return "n";
    case Dim::kK: return "k";
  }
  return "?";
}

std::int64_t extent(const Shape& s, Dim dim) { return dim == Dim::kM ? s.m : dim == Dim::kN ? s.n : s.k; }

const char* to_string(SizeForm form) {
  switch (form) {
    case SizeForm::kCount: return "n";
    case SizeForm::kMatrix: return "MxN";
    case SizeForm::kProduct: return "MxNxK";
  }
  return "?";
}

int dimension_count(SizeForm form) { return form == SizeForm::kCount ? 1 : form == SizeForm::kMatrix ? 2 : 3; }

std::int64_t BufferSpec::elements(const Shape& s) const {
  std::int64_t count = 1;
  for (const Dim d : extents) count *= extent(s, d);
  return count;
}

std::vector<std::int64_t> Workload::input_elements(const Shape& s) const {
  std::vector<std::int64_t> counts;
  for (const BufferSpec& b : descriptor_.inputs) counts.push_back(b.elements(s));
  return counts;
}

std::vector<Shape> Workload::edge_sizes() const {
  switch (size_form()) {
    case SizeForm::kProduct: return {{1, 1, 1}, {17, 33, 65}, {128, 1, 300}, {512, 512, 512}};
    case SizeForm::kMatrix: return {{1, 1, 1}, {1, 4097, 1}, {4097, 1, 1}, {33, 65, 1}, {31, 97, 1}, {257, 255, 1}};
    case SizeForm::kCount: break;
  }
  return {{1, 1, 1}, {1, 127, 1}, {1, 128, 1}, {1, 129, 1}, {1, 1000003, 1}};
}

Reference Workload::reference(const HostProblem&) const {
  throw std::logic_error(name() + " has no element-wise reference");
}

std::string Workload::size_label(const Shape& s) const {
  switch (size_form()) {
    case SizeForm::kCount: return std::to_string(s.n);
    case SizeForm::kMatrix: return std::to_string(s.m) + "x" + std::to_string(s.n);
    case SizeForm::kProduct: break;
  }
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

}  // namespace lb
