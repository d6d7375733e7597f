// The student's submission as the child process loads it, when a runner makes kernels of it
// (lab/runners/kernel_runner.h): variants that the harness's verified_run and timing run like any
// layer's; the checking and the timing stay the harness's code.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include "lab/spec/lab_spec.h"
#include "variants/variant.h"

namespace lb::lab {

// The student's file does not compile, or breaks the lab's rules, or defines no kernel the lab can
// call. what() is what the student reads: the compiler's lines ("<file>(<line>): error: ..."), or
// which kernel is missing.
class StudentCompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the lab's runner needs is missing here (the triton runner's Triton, in the Python layerbench
// uses): no fault of the student's file, so the check cannot run here (exit 3), as without a GPU.
// what() is one line naming what to install.
class RunnerUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a variant's buffers lie on the device, in the workload's order (HostProblem's): each input
// (workload.input_elements(shape)[i] floats) and the output (output_elements(shape) floats, its
// guard zone after it). The same for every run of one variant: the kernel's arguments do not move.
struct DeviceBuffers {
  std::vector<float*> inputs;
  float* output = nullptr;
};

// One instance of the student's kernel, with its buffers, for one size.
class StudentVariant : public Variant {
 public:
  // The output is followed by a guard zone holding a sentinel: a kernel that writes past the end
  // of its output changes it, even where the write would not fault. -1 when the guard is intact,
  // else the first changed guard element's offset past the end. A build with exact buffers (under
  // compute-sanitizer, StudentBuild::exact_buffers) has no guard zone: always -1.
  virtual std::int64_t first_write_past_end(cudaStream_t stream) const = 0;
  // For timing (lab/child/fresh_inputs.h): the buffers the kernel reads and writes, which the grade fills
  // with each timed sample's fresh inputs and starting output on the device, on the harness's
  // stream, before the sample (outside its timed region).
  virtual DeviceBuffers device_buffers() = 0;
  // The scalar (saxpy's alpha) the next launches pass, by value; ignored by kernels without one.
  virtual void set_scalar(float alpha) = 0;
};

// The loaded submission (a module, a Python kernel object): makes a variant per size.
class StudentProgram {
 public:
  virtual ~StudentProgram() = default;
  virtual std::unique_ptr<StudentVariant> make_variant() = 0;
};

// How the submission is built.
struct StudentBuild {
  bool line_info = false;  // keep source lines in the machine code (for compute-sanitizer and ncu)
  // Under compute-sanitizer (`lab check --sanitize`): compiled without optimisation (-G; Numba:
  // debug, opt=False), so a load the source makes before its bounds check is made, not sunk below
  // it, and every input and output an allocation of exactly its size, no guard zone, so that
  // memcheck sees any access past the end.
  bool exact_buffers = false;
  // The layerbench executable whose hidden helper compiles a kernel text in the limited compile
  // process (lab/runners/nvrtc/limited_compile.h); empty: this process's own, which is layerbench
  // wherever the labs run. Tests, whose executable is not layerbench, name it.
  std::filesystem::path compile_helper;
};

// The GPU the child runs the submission on (its primary context current on the child's thread).
struct TargetDevice {
  int sm = 90;        // compute capability as 90 for 9.0: what the file is compiled for
  int sm_count = 1;   // multiprocessors: grid_stride's grid is 4 blocks per SM
  int threads_per_sm = 2048;  // resident threads per SM: a folder's grid-stride grid fills them (grid_stride_blocks)
};

}  // namespace lb::lab
