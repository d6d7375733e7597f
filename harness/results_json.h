// The results file: Google Benchmark's JSON layout (context + benchmarks, the field names its
// tools/compare.py reads) with layerbench's fields added. docs/json-schema.md documents each field.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/case_runner.h"

namespace lb {

inline constexpr int kSchemaVersion = 1;

// `context` holds everything measured once per run: host, device, ceilings, layers, seed.
nlohmann::json results_json(const nlohmann::json& context, const std::vector<CaseResult>& results);

// Writes to a temporary file beside `path`, then renames it over `path`: a reader never sees a
// half-written file. Throws std::runtime_error naming the path on failure.
void write_file_atomically(const std::string& path, const std::string& text);

// Fails early (UsageError) when `path` cannot be written, creating missing parent directories.
void check_writable(const std::string& path);

}  // namespace lb
