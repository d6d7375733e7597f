// `lab check --sanitize`: the check's child run under compute-sanitizer's memcheck, and what it
// found, parsed from its log into a few lines a student can act on.
//
// The sanitizer writes its report to a log file (--log-file), never to the child's stdout, so the
// child's JSON lines (lab/child/child_event.h) reach the parent untouched. A memcheck log looks like:
//   ========= COMPUTE-SANITIZER
//   ========= Invalid __global__ read of size 4 bytes
//   =========     at lab_vector_add+0x70 in /home/s/no_bounds_check.cu:5
//   =========     by thread (1,0,0) in block (0,0,0)
//   =========     Access at 0x7f71b9e01360 is out of bounds            (older: "Address 0x... is")
//   =========     and is 1 bytes after the nearest allocation at 0x7f71b9e00a00 of size 4 bytes
//   =========     Saved host backtrace up to driver entry point at kernel launch time
//   =========         Host Frame: ...
//   =========
//   ========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to "unspecified launch failure" on CUDA API call to cuStreamSynchronize.
//   ...
//   ========= ERROR SUMMARY: 2 errors
// The file:line appears because the child compiles the student's file with line info.
//
// Note: the lab runner allocates a guard zone after the output (lab_kernel.h), so a store just past
// the output lands inside that allocation: the check's own guard finds it ("wrote past the end"),
// memcheck does not. Reads past the inputs, stores far past the output, misaligned accesses and
// out-of-bounds shared memory are memcheck's to find.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace lb::lab {

// Where a CUDA toolkit program is: the PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin (or the
// folders given). `path` empty when absent; `why_not` then says where it looked.
struct ToolLookup {
  std::filesystem::path path;
  std::string why_not;
  bool found() const { return !path.empty(); }
};
std::vector<std::filesystem::path> cuda_tool_dirs();  // the search order above, from the environment
ToolLookup find_cuda_tool(const std::string& name, const std::vector<std::filesystem::path>& dirs);
ToolLookup find_cuda_tool(const std::string& name);

// The sanitizer slows a kernel down by one to two orders of magnitude: `lab check --sanitize` runs
// under this many times the lab's time limit, and at least kSanitizeMinLimitS seconds (the tool's
// own start-up takes seconds).
constexpr double kSanitizeTimeFactor = 10;
constexpr double kSanitizeMinLimitS = 60;
double sanitize_time_limit(double lab_limit_s);

// The words before the child's argv: compute-sanitizer --tool memcheck --log-file LOG ...
std::vector<std::string> sanitizer_prefix(const std::filesystem::path& tool, const std::filesystem::path& log_file,
                                          int print_limit = 20);

// One error the sanitizer reported: its headline ("Invalid __global__ read of size 4 bytes"), where
// ("lab_vector_add+0x70 in vector_add.cu:5"), who ("thread (1,0,0) in block (0,0,0)") and the
// address lines ("Access at 0x... is out of bounds and is 1 bytes after ... of size 4 bytes").
struct SanitizerFinding {
  std::string headline, where, who, detail;
};

struct SanitizerReport {
  int errors = -1;  // the ERROR SUMMARY's count; -1 when the log has none (the tool did not finish)
  std::vector<SanitizerFinding> findings;  // in the log's order (at most the print limit)
  std::string tool_error;                  // the tool's own complaint ("Error: ..."), if any
  bool finished() const { return errors >= 0; }
};
SanitizerReport parse_sanitizer_log(const std::string& log);

// The report as lines for a student: "compute-sanitizer memcheck: 0 errors", or the count and the
// first `shown` findings (two lines each), or why the tool did not finish.
std::vector<std::string> sanitizer_lines(const SanitizerReport& report, std::size_t shown = 3);

// A fresh file name under the temporary folder for a tool's log (not created).
std::filesystem::path temp_log_path(const std::string& stem);

}  // namespace lb::lab
