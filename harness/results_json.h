// The results file's JSON, written from the run's typed records (records.h) in this one place:
// Google Benchmark's layout (a context object, a benchmarks array, the field names its
// tools/compare.py reads) with layerbench's fields beside them. docs/json-schema.md documents each.
// The JSON is only written, never read back by the program.
#pragma once
#include <nlohmann/json.hpp>

#include "harness/records.h"

namespace lb {

inline constexpr int kSchemaVersion = 2;

// The commit this build's sources were at (cmake/version.cmake: `git rev-parse HEAD`, with
// "-dirty", or "unknown"), as context.layerbench.source_commit and `layerbench --version` give it.
const char* source_commit();
// The build's version by the project's one rule (cmake/version.cmake: a release tag, else
// 0.1.0+g<commit>), as context.layerbench.version, `layerbench --version` and the Python package's
// layerbench.__version__ give it.
const char* package_version();
// `layerbench --version`'s line: "layerbench VERSION (commit COMMIT)", and where the commit is
// unknown, why ("commit unknown: no .git in ...").
std::string version_line();

nlohmann::json results_json(const RunRecord& run);

// The pieces, as the context holds them (and the lab's timing child emits the device's ceilings
// and peaks: lab/child/lab_child.cpp).
nlohmann::json context_json(const RunContext& context);
nlohmann::json device_json(const DeviceInfo& device);
nlohmann::json ceilings_json(const Ceilings& ceilings);  // {} when neither was measured
nlohmann::json measurement_json(const MeasurementSettings& measurement);
nlohmann::json host_json(const HostInfo& host);

// The benchmarks array: per case (per repetition, then the case's aggregates) Google Benchmark's
// fields (benchmark_run.h) and layerbench's.
nlohmann::json benchmarks_json(const RunContext& context, const std::vector<CaseResult>& cases);

}  // namespace lb
