// The registered (layer, workload) pairs as test parameters, for the tests that run every variant.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include "variants/variant.h"

namespace lb {

struct Pair {
  std::string layer, workload;
  friend void PrintTo(const Pair& p, std::ostream* os) { *os << p.layer << "/" << p.workload; }
};

// Registered (layer, workload) pairs, optionally only one workload or only GPU layers.
inline std::vector<Pair> pairs(const std::string& only_workload = "", bool gpu_only = false) {
  std::vector<Pair> found;
  for (const Layer* l : all_layers())
    for (const Workload* w : all_workloads())
      if (find_variant(l->name, w->name()) && (only_workload.empty() || w->name() == only_workload) &&
          (!gpu_only || l->on_gpu))
        found.push_back({l->name, w->name()});
  return found;
}

// GoogleTest names allow only letters, digits and '_': "thrust-omp" becomes "thrust_omp".
inline std::string pair_name(const ::testing::TestParamInfo<Pair>& info) {
  std::string name = info.param.layer + "_" + info.param.workload;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

}  // namespace lb
