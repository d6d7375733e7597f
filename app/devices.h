// `layerbench run --devices all|0,2`: each chosen GPU runs the whole plan in a process of its own
// (this executable again, with CUDA_VISIBLE_DEVICES naming that GPU alone), one after another or,
// with --concurrent, all at once; their results files are then merged into --out by
// `layerbench merge`, which prints the devices side by side (docs/fleet.md). Without --devices a
// run uses device 0 in this process.
#pragma once
#include <string>
#include <vector>

namespace lb {

// "all" -> 0..count-1; "0,2" -> {0, 2}. Throws UsageError naming a bad or missing index, a repeat,
// or (count 0) why there is no GPU.
std::vector<int> parse_devices(const std::string& text, int count, const std::string& why_none);

// The CUDA_VISIBLE_DEVICES value for this process's device `index`: the index itself, or the
// index-th entry of the list CUDA_VISIBLE_DEVICES already holds (a Slurm task's GPUs, say).
std::string visible_device_for(int index, const char* parent_visible);

// argv without --devices X / --devices=X / --concurrent, and with -o/--out set to `out`.
std::vector<std::string> child_arguments(int argc, char** argv, const std::string& out);

// Runs the children and merges their results into `out`. Returns the worst exit status: a child's
// (1 a case failed, 130 interrupted, ...) or the merge's.
int run_on_devices(const std::vector<int>& devices, bool concurrent, const std::string& out, int argc, char** argv);

}  // namespace lb
