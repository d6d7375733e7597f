// `layerbench lab profile LAB FILE`: the student's kernel profiled once with Nsight Compute (ncu)
// and summed up in a few lines: how long it ran, how busy DRAM and the SMs were, achieved against
// theoretical occupancy and what limits it, and a one-line verdict (memory-, compute- or
// latency-bound), so a student sees why it is slow.
//
// The child (`lab run-child ... --mode profile --line-info`) does one verified run at the lab's first
// benchmark size; ncu wraps it:
//   ncu --kernel-name <kernel> --launch-count 1 --section SpeedOfLight --section Occupancy
//       --section LaunchStats --section MemoryWorkloadAnalysis --csv --page raw --log-file <tmp>
//       <child argv>
// --log-file sends ncu's CSV (and its ==PROF==/==ERROR== lines) to a file, so the child's JSON lines
// on stdout stay clean. The parser reads both of ncu's CSV layouts:
//  * --page raw: a header row ("ID","Process ID",...,"Kernel Name",...,"Block Size","Grid Size",
//    ...,"<metric>",...), a units row (its first cell empty), then one row per profiled launch;
//  * --page details: one row per metric, with "Section Name","Metric Name","Metric Unit","Metric
//    Value" columns (display names such as "DRAM Throughput", "Achieved Occupancy").
// Numbers may carry thousands separators ("1,048,576") and units with SI prefixes (usecond, Gbyte/second).
#pragma once
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "lab/child/child_process.h"

namespace lb::lab {

struct ProfileSummary {
  bool found = false;            // a launch of the kernel was in the CSV
  std::string kernel, grid, block;  // as ncu wrote them: "(262144, 1, 1)"
  double duration_ns = NAN;
  double dram_bytes_per_s = NAN;  // achieved DRAM throughput
  double dram_pct = NAN;          // DRAM throughput, % of peak
  double memory_pct = NAN;        // the busiest memory unit (L1, L2, DRAM), % of peak
  double sm_pct = NAN;            // compute (SM) throughput, % of peak
  double achieved_occupancy_pct = NAN, theoretical_occupancy_pct = NAN;
  double registers_per_thread = NAN;
  double waves_per_sm = NAN;
  // Blocks per SM each resource allows (ncu's launch__occupancy_limit_*): the smallest limits.
  double limit_registers = NAN, limit_shared_mem = NAN, limit_warps = NAN, limit_blocks = NAN;
};

// The launch of `kernel` (a substring of ncu's Kernel Name; empty: the first launch) in ncu's CSV.
ProfileSummary parse_ncu_csv(const std::string& text, const std::string& kernel);

// "registers (8 blocks of this size fit on an SM)" — what caps the theoretical occupancy; empty
// when nothing does (100%) or ncu did not say.
std::string occupancy_limiter(const ProfileSummary& summary);

// One line: memory-bound, compute-bound or latency-bound, with the figure that says so.
std::string profile_verdict(const ProfileSummary& summary);

// The summary's lines to `out` (duration, DRAM, SM, occupancy, registers, grid/block, verdict).
void print_profile_summary(const ProfileSummary& summary, std::FILE* out);

// Why ncu could not profile, from its log: the counters' permission (ERR_NVGPUCTRPERM, with the
// fix), its ==ERROR== lines, or empty when the log shows no failure.
std::string ncu_failure(const std::string& log);
bool ncu_lacks_permission(const std::string& log);

// The words before the child's argv.
std::vector<std::string> ncu_prefix(const std::filesystem::path& ncu, const std::filesystem::path& log_file,
                                    const std::string& kernel);

// ncu replays the kernel once per group of counters and takes seconds to start: the child runs
// under this many times the lab's time limit, and at least kProfileMinLimitS.
constexpr double kProfileTimeFactor = 10;
constexpr double kProfileMinLimitS = 120;

// Exit statuses: 0 profiled; 1 the kernel did not compile, failed its check at the profiled size,
// or crashed; 2 bad input (UsageError, from the caller); 3 no ncu, no GPU, or ncu could not profile
// here (e.g. no permission for the performance counters).
int profile_submission(const LabSpec& spec, const std::filesystem::path& file, const CheckOptions& options,
                       std::FILE* out);

}  // namespace lb::lab
