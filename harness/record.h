// Step 4 of a run: the record. The results file is Google Benchmark's JSON layout (context +
// benchmarks, the field names its tools/compare.py reads) with layerbench's fields added.
// docs/json-schema.md documents each field.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/output_file.h"  // write_output: what the results are written with
#include "harness/case.h"
#include "harness/environment.h"
#include "harness/layer_sessions.h"
#include "harness/plan.h"

namespace lb {

inline constexpr int kSchemaVersion = 2;

// What the context records about the run itself.
struct RunInfo {
  std::string started_at;    // ISO 8601 with offset
  std::string executable;
  std::string command_line;
  double suite_wall_s = 0;   // wall time of the cases
};

// Everything measured once per run: the run, host, device, ceilings, measurement settings, each
// layer (whether it runs on the GPU, what it describes, its session's one-time costs), each
// workload (its figure), and Google Benchmark's CPU information (`benchmark_context`).
nlohmann::json run_context(const RunInfo& run, const SuitePlan& plan, const Environment& env,
                           const LayerSessions& sessions, const nlohmann::json& benchmark_context);

nlohmann::json results_json(const nlohmann::json& context, const std::vector<CaseResult>& results);

}  // namespace lb
