#include "workloads/ladder.h"

#include "common/cuda_check.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace lb {
namespace {

std::vector<Rung>& registry() {
  static std::vector<Rung> rungs;  // registered during static initialization, never after
  return rungs;
}

std::string two_digits(int n) {
  char text[16];
  std::snprintf(text, sizeof text, "%02d", n);
  return text;
}

}  // namespace

std::string Rung::id() const { return workload + "/" + two_digits(number) + "_" + name; }

unsigned Rung::smem_bytes() const {
  return std::visit([](const auto& l) { return l.smem_bytes; }, launch);
}

std::string source_relative(const char* file) { return source_path(file); }  // common/cuda_check.h

bool register_rung(Rung rung) {
  for (const Rung& r : registry())
    if (r.workload == rung.workload && (r.number == rung.number || r.name == rung.name)) {
      std::fprintf(stderr, "layerbench: rung %s clashes with %s; not registered\n", rung.id().c_str(), r.id().c_str());
      return false;
    }
  registry().push_back(std::move(rung));
  return true;
}

std::vector<const Rung*> ladder_rungs(const std::string& workload) {
  std::vector<const Rung*> found;
  for (const Rung& r : registry())
    if (workload.empty() || r.workload == workload) found.push_back(&r);
  std::sort(found.begin(), found.end(), [](const Rung* a, const Rung* b) {
    return a->workload != b->workload ? a->workload < b->workload : a->number < b->number;
  });
  return found;
}

const Rung* find_rung(const std::string& id) {
  const auto slash = id.find('/');
  if (slash == std::string::npos) return nullptr;
  const std::string workload = id.substr(0, slash), which = id.substr(slash + 1);
  for (const Rung* r : ladder_rungs(workload))
    if (which == two_digits(r->number) + "_" + r->name || which == r->name || which == std::to_string(r->number) ||
        which == two_digits(r->number))
      return r;
  return nullptr;
}

}  // namespace lb
