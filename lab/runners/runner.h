// Who compiles, runs, checks and times a lab's student file (lab.json "runner"): one interface,
// one implementation per runner in its own folder, chosen once when the spec is parsed
// (LabSpec::runner) and asked by everything else, which never names a runner.
//
//   nvrtc/      CUDA C++ kernel text compiled alone with NVRTC, launched through the driver API
//   numba/      a Python file of @cuda.jit kernels, imported only in a compile process of its own
//               (compile_process.h) that hands back PTX, which the child launches through the driver API
//   triton/     a Python file of @triton.jit functions, the same way: Triton's PTX from a compile
//               process, launched by the child through the driver API (lab_kernel.h's KernelAbi::kTriton)
//   python/     pycuda and cuda-core (CUDA C++ kernel text compiled and launched from Python),
//               through the embedded interpreter
//   host_trip/  a CUDA C++ file whose host code is the lesson, built with nvcc: it moves the data
//               itself, and its whole trip from host memory to host memory is what is timed
//
// Adding a runner: a folder here with a class deriving from Runner (or KernelRunner, for one whose
// submission becomes variants the harness runs: kernel_runner.h), and one line in runners.cpp.
//
// This header names the types it speaks of and includes none of their headers, so that the spec
// (which picks the runner) and the rooms that ask it depend on it without depending on each other.
// The defaults below (a runner that times one kernel) are in runner_defaults.cpp; the registry is
// runners.cpp.
#pragma once
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lb {
struct RateLimit;  // harness/device_peaks.h
}  // namespace lb

namespace lb::lab {

struct LabSpec;             // lab/spec/lab_spec.h
struct BoundArgument;       // lab/spec/lab_spec.h
enum class ChildMode;       // lab/child/child_mode.h
enum class ArrivalClock;    // lab/child/watchdog.h
struct ChildRequest;        // lab/child/child_process.h
struct ChildReport;         // lab/child/child_process.h
class ChildNotes;           // lab/child/child_process.h
struct TimingEnvironment;   // lab/child/child_event.h
struct Ceiling;             // lab/grading/grading.h
struct Grade;               // lab/grading/grading.h

class Runner {
 public:
  Runner(std::string name, std::string extension) : name_(std::move(name)), extension_(std::move(extension)) {}
  virtual ~Runner() = default;
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // lab.json's "runner", and what the student's file must end with.
  const std::string& name() const { return name_; }
  const std::string& extension() const { return extension_; }

  // --- the spec (lab/spec/lab_spec.cpp) ---
  // Whether lab.json gives a launch shape; false: the student's own host code launches.
  virtual bool takes_launch() const { return true; }
  // Why the spec's arguments (bound to the workload's) cannot be called by this runner; empty
  // when they can (lab.json's "arguments" is then refused with this text).
  virtual std::string arguments_error(const std::vector<BoundArgument>& arguments) const;
  // Whether it runs a lab on a workload folder (lab.json's "workload_dir"): the folder's typed
  // buffers, scalars and launch. A runner that cannot is refused such a lab when it is parsed.
  virtual bool runs_folder_workloads() const { return false; }
  // Whether the child loads the file through the embedded interpreter: a build without an
  // embeddable Python refuses such a lab.
  virtual bool embedded_python() const { return false; }

  // --- the parent, before any GPU is touched (lab/child/child_process.cpp) ---
  // The file compiles (for sm_90) or follows the lab's rules, so that its errors are reported
  // without a GPU. Throws StudentCompileError (what the student reads), UsageError when the file
  // cannot be read.
  virtual void precheck(const LabSpec& spec, const std::filesystem::path& file) const = 0;
  // How the check names a file that failed precheck or its build ("does not compile"), and the
  // FAIL line that follows the compiler's lines (what the file may hold).
  virtual std::string compile_failed_as() const { return "does not compile"; }
  virtual std::string compile_failed_rule(const std::string& file_name) const;
  // How the parent waits for the child's lines in `mode` (lab/child/watchdog.h).
  virtual ArrivalClock arrival_clock(ChildMode mode) const;
  // What the parent keeps of this runner's own events (ChildNotes); nullptr: none.
  virtual std::shared_ptr<ChildNotes> child_notes(ChildMode mode) const;
  // Whether a grade takes the GPU's peaks and ceilings from a child of their own (ChildMode::
  // kEnvironment), which loads no student code, before the timing child (which then writes no
  // environment). False: the timing child reports them.
  virtual bool environment_apart() const { return false; }
  // Why the grade cannot read a rate against `environment` (no peaks to bound it, no ceiling to
  // read it against), in a few words; empty when it can. A grade with a reason earns no
  // performance points: a figure missing is never a check skipped.
  // Every runner's refuses, among others, an environment that leaves the speed limit (rate_limit)
  // of any benchmark size unchecked: unchecked_size_refusal.
  virtual std::string environment_refusal(const LabSpec& spec, const std::optional<TimingEnvironment>& environment) const;
  // The first benchmark size whose rate_limit `environment` leaves unchecked, in a refusal's words
  // with the figure it lacks ("... leaves the speed limit at 2048x2048x2048 unchecked: no fp32
  // peak: ..."); empty when every size has a limit.
  std::string unchecked_size_refusal(const LabSpec& spec, const std::optional<TimingEnvironment>& environment) const;

  // What the processes that run the student's code exec (lab/child/student_sandbox.h: the `lab`
  // parent's probe that a uid of the grade's own can run it): this layerbench executable (lab 8's
  // trip process, the limited compile of kernel text), or a Python runner's interpreter.
  virtual std::filesystem::path student_executable() const;

  // --- the child, on the GPU (lab/child/lab_child.cpp): its events to `out`, its exit status.
  virtual int run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                        std::FILE* out) const = 0;

  // --- the grade (lab/grading/grading.cpp, which asks these once per submission) ---
  // Whether a grade times one kernel (else the student's whole program: `lab profile`, which
  // profiles one kernel with Nsight Compute, then refuses with why_not_profiled).
  virtual bool times_one_kernel() const { return true; }
  virtual std::string why_not_profiled(const LabSpec& spec, const std::filesystem::path& file) const;
  // The ceiling the grade reads the student's rate against, from the timing child's environment:
  // the GPU's copy bandwidth or cuBLAS SGEMM rate, as the workload's figure says.
  virtual Ceiling ceiling(const LabSpec& spec, const std::optional<TimingEnvironment>& environment) const;
  // The highest rate a correct submission can show at benchmark size `label` on the timing child's
  // GPU; above it, the grade refuses the performance part.
  virtual RateLimit rate_limit(const LabSpec& spec, const std::string& label,
                               const std::optional<TimingEnvironment>& environment) const;
  // Lines of feedback beyond the grade's arithmetic, from the timing child's report and the grade
  // (grading.cpp adds them after its own; the runner sets no point and no outcome).
  virtual std::vector<std::string> timing_feedback(const LabSpec& spec, const ChildReport& timed,
                                                   const Grade& grade) const;
  // What the student's time is compared with, as the grade and the leaderboard name it: "ours (the
  // runtime layer)".
  virtual std::string what_ours_is(const LabSpec& spec) const;
  // What is timed, as the grade's feedback names it: "your kernel".
  virtual std::string what_is_timed() const { return "your kernel"; }
  // Where the student finds what limits it, as the grade's line on the next tier says.
  // --- a process of the runner's own that its child starts (`layerbench lab run-helper NAME ARGS...`,
  // hidden): the host trip's trip process. `args` are the words after NAME; the exit status.
  // By default there is none: a one-line usage error.
  virtual int run_helper(const std::vector<std::string>& args) const;
  virtual std::string where_its_time_goes() const { return "`layerbench lab profile` shows what limits your kernel"; }

 private:
  std::string name_, extension_;
};

// The runner lab.json names; nullptr when none has that name.
const Runner* find_runner(const std::string& name);
// The runner of a lab.json without "runner": the first registered whose extension the file has.
const Runner* default_runner_for(const std::string& student_file);
// Every registered runner's name, ", "-separated, for messages.
std::string runner_names();

}  // namespace lb::lab
