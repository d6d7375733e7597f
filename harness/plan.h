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
// Sizes (--size) go to the workloads they are sizes of. A workload -w named takes every size (MxNxK
// for one that takes one number is bad input). The others (no -w: every workload; the rungs'
// workloads) take the sizes of their form (SizeForm): MxN only the matrix workloads, MxNxK only the
// products; one number the others, and the matrix and product workloads too (a square, a cube)
// unless the list also has a size of their own form; the launch-overhead
// workloads keep their default count of launches. A workload that gets no size is not run
// (SuitePlan::no_size says so). A size that is not a size (0, negative, not
// a number, past 2^63 - 1, an MxNxK dimension past 2^31 - 1) is bad input; a size that is one but
// does not fit this machine (its inputs need more host memory than there is, a cube's side past
// 2^31 - 1; a workload folder's buffers more than the GPU's memory) is a case skipped with that
// reason (Case::does_not_fit), and the run goes on.
// Rungs (--rung): "matmul/03_smem_tiling" (or "matmul/3", "matmul/smem_tiling"), "matmul/all",
// "all". Each adds a case per size on each named layer that runs rungs (Layer::runs_rungs; none
// named: runtime). With rungs, workloads are not all by default: the layers' own cases run only
// for the workloads named.
struct SuiteRequest {
  std::vector<std::string> workloads, layers, sizes, rungs;
};

// One size of a workload in a plan: its shape, and why it cannot run on this machine when it cannot.
struct PlannedSize {
  Shape shape;
  std::string does_not_fit;  // "does not fit in host memory: ..." (empty: it fits)
  bool operator==(const PlannedSize&) const = default;
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
  std::vector<std::string> no_size;   // workloads none of whose --size values is of their kind: not run
  // Each workload's sizes, whether or not a layer here runs them (what a workload folder is checked
  // at before any case: app/folder_checks.h), each with why it does not fit, if it does not.
  std::vector<std::pair<const Workload*, std::vector<PlannedSize>>> sizes;  // in plan order
  bool any_gpu() const;
};

// Throws UsageError (one line naming the bad value) for an unknown name or rung, a bad size (not a
// size of a workload -w named included), or rungs with no layer named that runs them. A size too
// large for this machine is not bad input: its cases are skipped (Case::does_not_fit).
SuitePlan plan_suite(const SuiteRequest& request);


// The sizes `texts` (--size; empty: the workload's defaults) give workload `w` on a machine with
// `host_memory` bytes (see SuiteRequest): `named` when -w named it, `matrix_given` when the list has
// a size written in w's own form (MxN, MxNxK). UsageError for bad input.
// A size whose buffers need more than `device_memory` bytes (Workload::device_bytes; 0: not checked)
// is skipped the same way, with its reason, before anything is drawn.
std::vector<PlannedSize> sizes_for(const Workload& w, const std::vector<std::string>& texts, bool named,
                                   bool matrix_given, double host_memory, double device_memory = 0);

// The rungs that `spec` names (see SuiteRequest), in ladder order; UsageError naming it if none.
std::vector<const Rung*> rungs_named(const std::string& spec);

// The plan's notes on stderr: one line per layer left out with its reason (one per reason when no
// layer was named: the run is then every layer there is; without a GPU, one line for all the GPU
// layers, the GPU's reason and what some lack besides), one per case left out
// of the default sweep, one naming the layers that were asked for rungs and do not run them, one
// naming the workloads that got no size of their kind.
void print_plan_notes(const SuitePlan& plan, std::FILE* out);

}  // namespace lb
