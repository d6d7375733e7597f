// A coursework lab's spec (labs/<NN-name>/lab.json), parsed and checked, and where labs are found.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "common/usage_error.h"
#include "variants/variant.h"
#include "workloads/folder/folder_workload.h"
#include "workloads/workload.h"

namespace lb::lab {

// A lab.json that cannot be used: one line naming the file and the field. Bad input (exit 2).
class LabSpecError : public UsageError {
 public:
  using UsageError::UsageError;
};

// How the runner passes a kernel parameter: a device pointer (8 bytes), or a value of the C type
// the workload's KernelArg names ("float" and "int" 4 bytes, "long long" 8).
enum class PassedAs { kPointer, kFloat, kInt, kLongLong };
struct BoundArgument {
  KernelArg arg;
  PassedAs as = PassedAs::kPointer;
};

// How the kernel is launched. grid: cover_n = ceil(n / block.x) blocks; grid_stride =
// min(cover_n, 4 * SM count); cover_mn = (ceil(N / block.x), ceil(M / block.y)), for a workload
// whose size has rows and columns (SizeForm kMatrix or kProduct), the only rule such a workload takes.
enum class GridRule { kCoverN, kGridStride, kCoverMN };
struct LaunchShape {
  unsigned block_x = 1, block_y = 1;
  GridRule grid = GridRule::kCoverN;
};

// Points for performance: at least `at_least` of the baseline layer's speed (`fraction_of` names
// it, and must be the spec's baseline_layer).
struct Tier {
  std::string fraction_of;
  double at_least = 0;
  int points = 0;
};

// Who compiles, runs, checks and times the student's file (lab.json "runner"):
// lab/runners/runner.h.
class Runner;

struct LabSpec {
  std::filesystem::path dir;   // labs/<NN-name>
  std::string name;            // the folder's name, "01-vector-add"
  std::string title;
  int order = 0;
  const Workload* workload = nullptr;
  // A lab on a workload folder (lab.json's "workload_dir", docs/your-own-workload.md): the folder's
  // workload (also `workload`), whose workload.json gives the kernel's name, its parameters (in
  // order, typed: FolderSpec::arguments) and its launch (FolderSpec::launch), which lab.json then
  // does not. nullptr for a built-in workload ("workload").
  const FolderWorkload* folder = nullptr;
  std::string student_file;    // the file the student edits, in `dir`
  const Runner* runner = nullptr;  // "runner"; absent: the first registered for the file's extension
  std::string kernel;          // extern "C" __global__ name
  std::string signature;       // shown to students
  std::vector<std::string> arguments;  // kernel parameters, by their names in the workload's kernel_args
  // The same parameters, in order, as the runner binds them: the workload's KernelArg of each name
  // (what it is bound to) and the C type it is passed as.
  std::vector<BoundArgument> bound_arguments;
  bool output_starts_zero = false;     // else poison (NaN), or y for saxpy; a folder's outputs start as it says
  // None when the runner takes none (the student's host code launches). A folder lab's launch is
  // the folder's (FolderSpec::launch); only its block is copied here, for the check's hints.
  LaunchShape launch;
  std::vector<std::string> check_size_texts;  // as written, for messages
  std::vector<Shape> check_sizes;
  std::vector<Shape> benchmark_sizes;
  int check_points = 0, performance_points = 0;
  std::vector<Tier> tiers;
  double time_limit_s = 10;
  // Ours: the layer whose kernel for the workload the student's is timed against (baseline_layer,
  // a GPU layer with a variant of the workload; "runtime" in every lab here).
  const Layer* baseline = nullptr;
};

// Check size i as the check's lines name it: "n = 257", "n = 16777216 (2^24)", "MxNxK = 17x33x65".
std::string check_size_label(const LabSpec& spec, std::size_t i);

// What the output holds before the run: zeros where the spec says so (a reduce that atomicAdds
// into it), else the problem's (NaN poison, or saxpy's y).
HostBuffer starting_output(const LabSpec& spec, const HostProblem& problem);

// Parses `lab_json` (its folder names the lab). Throws LabSpecError naming the file and the field.
LabSpec parse_lab_spec(const std::filesystem::path& lab_json);

// The default labs folder: $LAYERBENCH_LABS, else <source tree>/labs.
std::filesystem::path default_labs_dir();
// Every lab under `labs_dir` (folders holding a lab.json), in `order`; where workload folders
// cannot be read (no embedded interpreter, no NumPy in it), less the labs on one (which find_lab
// refuses, saying why).
std::vector<LabSpec> all_labs(const std::filesystem::path& labs_dir);
// What `lab list` shows: every lab under `labs_dir` that can be read here, in `order`, and each one
// that cannot, by folder name, with why (a workload folder whose Python packages are missing, a
// lab.json that does not parse), instead of one bad lab stopping the list.
struct LeftOutLab {
  std::string name;  // the lab's folder name
  std::string why;   // one line
};
struct LabsRead {
  std::vector<LabSpec> labs;
  std::vector<LeftOutLab> left_out;  // by folder name
};
LabsRead read_labs(const std::filesystem::path& labs_dir);
// A lab by its folder name ("01-vector-add") or number ("1", "01"); UsageError when unknown.
LabSpec find_lab(const std::filesystem::path& labs_dir, const std::string& which);

}  // namespace lb::lab
