// `layerbench run` and `layerbench ladder` once their options are parsed (app/cli.cpp): the run's
// orchestration, plan -> environment -> cases -> record, the results written (standard output
// kept for them alone under `-o -`: app/console_for_results.h) and the summary printed.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/layer_sessions.h"
#include "harness/plan.h"
#include "harness/sampling.h"

namespace lb {

inline constexpr const char* kDefaultOut = "results/latest.json";

struct RunArgs {
  SuiteRequest suite;
  std::string out = kDefaultOut;
  std::optional<std::uint64_t> seed;
  std::string mode = "cold";
  double noise_percent = 0.5;
  StoppingRule rule;
  bool to_cap = false;
  bool thorough = false;
  std::optional<double> max_time_s;  // --max-time; unset: the rule's cap, or --thorough's
  bool check = false;
  bool host_clock = false;  // --host-clock: every GPU layer timed by the host clock
  bool verbose = false;  // the summary lists every one-time cost
  LayerConfig layers;
  std::vector<std::string> kernel_texts;  // --kernel-text NAME=FILE, as typed (run only)
  std::vector<std::string> workload_dirs;  // --workload-dir DIR (run only): workload folders to run
  std::vector<std::string> benchmark_flags;
};

struct LadderArgs {
  RunArgs run;
  std::string workload, size, layer = "runtime";
};

// --kernel-text NAME=FILE, each checked and read now, before anything runs: NAME a kernel text a
// layer compiles at run time, FILE a readable file that is not empty. UsageError naming the bad
// value otherwise.
std::map<std::string, LayerConfig::KernelText> read_kernel_texts(const std::vector<std::string>& specs);

// The layers that run ladder rungs: "runtime, driver".
std::string rung_layers_text();
// The layers that run a workload folder's kernel text (Layer::folder_variant): "runtime, driver, ...".
std::string folder_layers_text();

// "a, b, c": words joined by ", " (the command line's lists).
std::string joined(const std::vector<std::string>& words);

// A run: plan the suite, measure and record it, print the summary. Returns the exit status.
int run_command(RunArgs& args, int argc, char** argv);
// `layerbench ladder WORKLOAD`: every rung at one size through one layer, then the ladder's table.
int ladder_command(LadderArgs& args, int argc, char** argv);

}  // namespace lb
