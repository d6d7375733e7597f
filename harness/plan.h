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
// Rungs (--rung): "matmul/03_smem_tiling" (or "matmul/3", "matmul/smem_tiling"), "matmul/all",
// "all". Each adds a case per size on each named layer that runs rungs (Layer::runs_rungs; none
// named: runtime). With rungs, workloads are not all by default: the layers' own cases run only
// for the workloads named.
struct SuiteRequest {
  std::vector<std::string> workloads, layers, sizes, rungs;
};

struct SuitePlan {
  std::vector<const Workload*> workloads;
  std::vector<const Layer*> layers;  // those that can run here
  std::vector<Case> cases;           // workload x size x layer, in that order
  std::map<std::string, std::vector<std::string>> unavailable;  // reason -> layers left out for it
  bool layers_named = false;          // -l named the layers (else: all of them)
  std::vector<std::string> left_out;  // cases the default sweep leaves out (too slow on a layer)
  std::vector<const Rung*> rungs;     // the rungs asked for, in ladder order
  std::vector<std::string> no_rungs;  // layers named that do not run rungs
  bool any_gpu() const;
};

// Throws UsageError (one line naming the bad value) for an unknown name or rung, a bad size, a size
// that needs more host memory than this machine has, or rungs with no layer named that runs them.
SuitePlan plan_suite(const SuiteRequest& request);

// The rungs that `spec` names (see SuiteRequest), in ladder order; UsageError naming it if none.
std::vector<const Rung*> rungs_named(const std::string& spec);

// The plan's notes on stderr: one line per layer left out with its reason (one per reason when no
// layer was named: the run is then every layer there is), one per case left out
// of the default sweep, one naming the layers that were asked for rungs and do not run them.
void print_plan_notes(const SuitePlan& plan, std::FILE* out);

}  // namespace lb
