// `layerbench lab check`: the student's kernel compiled, run on the lab's check sizes in a child
// process under a time limit (lab/child/child_process.h), verified, and reported size by size.
#pragma once
#include <cstdio>
#include <filesystem>

#include "lab/child/child_process.h"
#include "lab/spec/lab_spec.h"

namespace lb::lab {

// The check's lines ("  PASS  n = 257", "  FAIL  n = ...: why", a hint, a summary) to `out`;
// returns check_submission's exit status.
int print_check_report(const LabSpec& spec, const std::filesystem::path& file, const ChildReport& report,
                       std::FILE* out);

// Checks `file` against `spec`, printing per size "  PASS  n = 257" or "  FAIL  n = ...: why" and a
// summary to `out`. Returns an exit status (lab/child/child_process.h).
int check_submission(const LabSpec& spec, const std::filesystem::path& file, const CheckOptions& options,
                     std::FILE* out);

}  // namespace lb::lab
