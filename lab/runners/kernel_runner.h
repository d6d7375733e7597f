// A runner whose submission becomes kernels the harness runs like any layer's (nvrtc, python):
// the child loads the student's program (lab/child/student_program.h) and checks it at the check
// sizes, times it beside the lab's baseline layer at the benchmark sizes, or runs it once for a
// profiler; the checking and the timing stay the harness's code. A runner of this kind says only
// how to load the program.
#pragma once
#include <memory>

#include "harness/sampling.h"  // StoppingRule
#include "lab/child/child_process.h"
#include "lab/child/student_program.h"
#include "lab/runners/runner.h"

namespace lb::lab {

class KernelRunner : public Runner {
 public:
  using Runner::Runner;
  // In the child: the submission compiled for `device` and loaded on the current context. Throws
  // StudentCompileError.
  virtual std::unique_ptr<StudentProgram> load(const LabSpec& spec, const std::filesystem::path& file,
                                               const TargetDevice& device, const StudentBuild& build) const = 0;
  int run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                std::FILE* out) const final;
  // The GPU's peaks and ceilings from a child that loads no student code.
  bool environment_apart() const final { return true; }
};

// The wall-clock cap on the student's timed samples at one size: the rule's own, widened by each
// sample's host work (`per_sample_ms`: its inputs' draw where a workload folder draws them on the
// host, and its verification) for the rule's minimum of samples and two more, so that the student
// gets that minimum as ours does; but never past kStudentSamplingMaxSeconds (child_mode.h), so that
// the timing ends inside its limit however slow the host work is (then with fewer samples).
double student_time_cap_s(const StoppingRule& rule, double per_sample_ms);

}  // namespace lb::lab
