// `layerbench lab check`: the student's kernel compiled, run on the lab's check sizes in a child
// process under a time limit, verified, and reported size by size.
//
// The parent (check_submission) never touches the GPU: it compiles the file on the host for
// sm_90 to report compile errors, then starts `<runner> lab run-check LAB_JSON FILE --seed S`
// and reads the child's JSON lines. The child (run_check_child) does the GPU work:
//   {"event": "no_gpu", "reason": "..."}                       then exit 3
//   {"event": "compile_error", "message": "..."}               then exit 1
//   {"size": "257", "passed": true}                            one per size, in order
//   {"size": "257", "passed": false, "feedback": "element ..."}
//   {"size": "257", "cuda_error": "an illegal memory access ... (CUDA_ERROR_ILLEGAL_ADDRESS)"}  then exit 1
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "lab/lab_spec.h"

namespace lb::lab {

// Exit statuses of `lab check` (and its child).
constexpr int kExitPassed = 0;
constexpr int kExitFailed = 1;      // a size failed, it did not compile, it timed out or crashed
constexpr int kExitBadInput = 2;    // unknown lab, missing file, bad lab.json
constexpr int kExitCannotRun = 3;   // no usable GPU here

struct CheckOptions {
  std::vector<std::string> runner;  // the command that runs `lab run-check ...`: layerbench itself
  std::uint64_t seed = 0;           // the inputs' seed (fresh each check, never shown)
};

// The runner check_submission uses by default: this executable, or $LAYERBENCH_LAB_RUNNER (a
// command, split on spaces; for tests, which stand in a child that hangs).
std::vector<std::string> default_runner();

// Checks `file` against `spec`, printing per size "  PASS  n = 257" or "  FAIL  n = ...: why" and a
// summary to `out`. Returns an exit status above.
int check_submission(const LabSpec& spec, const std::filesystem::path& file, const CheckOptions& options,
                     std::FILE* out);

// The child: runs `file` on every check size, one JSON line each to `out`. Returns its exit status.
int run_check_child(const LabSpec& spec, const std::filesystem::path& file, std::uint64_t seed, std::FILE* out);

}  // namespace lb::lab
