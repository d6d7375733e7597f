// Step 4 of a run: the record. The results file is Google Benchmark's JSON layout (context +
// benchmarks, the field names its tools/compare.py reads) with layerbench's fields added.
// docs/json-schema.md documents each field.
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

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

// What the output options take for standard output ("-o -").
inline constexpr const char* kStandardOutput = "-";

// A results file, a grade or a report could not be written (after the work that made it).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to the output `path` names, never destroying what the path points at:
//   "-"                        standard output;
//   a symlink                  followed (through every link) to its target, written as below;
//   a device, FIFO or socket   written straight through (/dev/null works; a full device fails);
//   a regular file, or nothing a temporary file beside it, renamed over it: a reader never sees
//                              half a file, and a killed process leaves the old one whole.
// Throws OutputError naming the path on failure.
void write_output(const std::string& path, const std::string& text);

// Fails early (UsageError) when `path` cannot be written, creating missing parent directories. A
// device or FIFO is checked for permission only (opening a FIFO would wait for a reader).
void check_writable(const std::string& path);

}  // namespace lb
