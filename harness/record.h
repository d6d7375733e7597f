// Step 4 of a run: the record. What the run measured and knows, gathered into typed records
// (records.h); results_json.h writes them as the results file (Google Benchmark's JSON layout,
// the field names its tools/compare.py reads, with layerbench's fields added). docs/json-schema.md
// documents each field.
#pragma once
#include <string>

#include "common/output_file.h"  // write_output: what the results are written with
#include "harness/environment.h"
#include "harness/layer_sessions.h"
#include "harness/plan.h"
#include "harness/records.h"
#include "harness/results_json.h"

namespace lb {

// What the context records about the run itself.
struct RunInfo {
  std::string started_at;    // ISO 8601 with offset
  std::string run_id;        // new_run_id(): this run's identity, which no other run shares
  std::string executable;
  std::string command_line;
  double suite_wall_s = 0;   // wall time of the cases
};

// 128 random bits from std::random_device as 32 lower-case hex digits, drawn when a run starts:
// what tells two runs apart where host, device and date agree (two runs in one second).
std::string new_run_id();

// Everything measured once per run: the run, host, device, ceilings, measurement settings, the
// context probe's readings, each layer (whether it runs on the GPU, what it describes, its
// session's one-time costs), each workload (its descriptor), and Google Benchmark's CPU information.
RunContext run_context(const RunInfo& run, const SuitePlan& plan, const Environment& env,
                       const LayerSessions& sessions);

}  // namespace lb
