// Step 1 of a run: the suite. Which workloads, layers and sizes the command line asked for (or
// the defaults), checked before anything runs, and the cases they make.
#pragma once
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "harness/case.h"

namespace lb {

// Names as given on the command line; empty: all of them, and each workload's default sizes.
struct SuiteRequest {
  std::vector<std::string> workloads, layers, sizes;
};

struct SuitePlan {
  std::vector<const Workload*> workloads;
  std::vector<const Layer*> layers;  // those that can run here
  std::vector<Case> cases;           // workload x size x layer, in that order
  std::map<std::string, std::vector<std::string>> unavailable;  // reason -> layers left out for it
  std::vector<std::string> left_out;  // cases the default sweep leaves out (too slow on a layer)
  bool any_gpu() const;
};

// Throws UsageError (one line naming the bad value) for an unknown name, a bad size, or a size
// that needs more host memory than this machine has.
SuitePlan plan_suite(const SuiteRequest& request);

// The plan's notes on stderr: one line per reason GPU layers are left out, one per case left out
// of the default sweep.
void print_plan_notes(const SuitePlan& plan, std::FILE* out);

}  // namespace lb
