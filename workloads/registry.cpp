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

std::vector<Shape> Workload::edge_sizes() const {
  if (takes_matrix_sizes()) return {{1, 1, 1}, {17, 33, 65}, {128, 1, 300}, {512, 512, 512}};
  return {{1, 1, 1}, {1, 127, 1}, {1, 128, 1}, {1, 129, 1}, {1, 1000003, 1}};
}

Reference Workload::reference(const HostProblem&) const {
  throw std::logic_error(name() + " has no element-wise reference");
}

std::string Workload::size_label(const Shape& s) const {
  if (!takes_matrix_sizes()) return std::to_string(s.n);
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

}  // namespace lb
