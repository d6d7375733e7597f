// A coursework lab's spec (labs/<NN-name>/lab.json), parsed and checked, and where labs are found.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "common/usage_error.h"
#include "variants/variant.h"
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

// Who compiles and launches the student's file (lab.json "runner"): NVRTC and the driver API
// (CUDA C++ kernel text, labs 1-4), Numba (a Python file of @cuda.jit kernels), PyCUDA's
// SourceModule or cuda.core's Program (CUDA C++ kernel text, launched from Python), or nvcc (a
// CUDA C++ file whose host code is the lesson: it launches its own kernels, and has no launch
// shape). lab_spec.cpp's runner table names each.
enum class LabRunner { kNvrtc, kNumba, kPycuda, kCudaCore, kNvccHost };
const char* to_string(LabRunner runner);
// True for the runners that are Python layers (numba, pycuda, cuda-core): the child loads the
// file through the embedded interpreter.
bool runs_in_embedded_python(LabRunner runner);

struct LabSpec {
  std::filesystem::path dir;   // labs/<NN-name>
  std::string name;            // the folder's name, "01-vector-add"
  std::string title;
  int order = 0;
  const Workload* workload = nullptr;
  std::string student_file;    // the file the student edits, in `dir`
  LabRunner runner = LabRunner::kNvrtc;  // "runner"; absent: numba for a .py file, else nvrtc
  std::string kernel;          // extern "C" __global__ name
  std::string signature;       // shown to students
  std::vector<std::string> arguments;  // kernel parameters, by their names in the workload's kernel_args
  // The same parameters, in order, as the runner binds them: the workload's KernelArg of each name
  // (what it is bound to) and the C type it is passed as.
  std::vector<BoundArgument> bound_arguments;
  bool output_starts_zero = false;     // else poison (NaN), or y for saxpy
  LaunchShape launch;          // kNvccHost: none (the student's host code launches)
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

// What a grade times: the student's kernel alone (every runner but nvcc-host), or, for a lab whose
// student writes the host code (nvcc-host), the whole trip from host memory to host memory, timed
// by the parent's clock and read against the host link's bandwidth (lab/runners/host_trip/trip_child.h,
// lab/runners/host_trip/trip_clock.h, lab/runners/host_trip/trip_grading.h).
bool graded_end_to_end(const LabSpec& spec);
// What the student's time is compared with, as the grade and the leaderboard name it: "ours (the
// runtime layer)", or for a lab graded end to end "ours (lab/runners/host_trip/trip_ours.cu, written with the
// runtime API)".
std::string what_ours_is(const LabSpec& spec);

// Parses `lab_json` (its folder names the lab). Throws LabSpecError naming the file and the field.
LabSpec parse_lab_spec(const std::filesystem::path& lab_json);

// The default labs folder: $LAYERBENCH_LABS, else <source tree>/labs.
std::filesystem::path default_labs_dir();
// Every lab under `labs_dir` (folders holding a lab.json; solutions/ is not a lab), in `order`.
std::vector<LabSpec> all_labs(const std::filesystem::path& labs_dir);
// A lab by its folder name ("01-vector-add") or number ("1", "01"); UsageError when unknown.
LabSpec find_lab(const std::filesystem::path& labs_dir, const std::string& which);

}  // namespace lb::lab
