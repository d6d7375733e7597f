// A Numba lab's kernel, compiled away from the child (lab/runners/numba/numba_runner.h): the
// compile process's result, checked before anything of it is used.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "lab/child/student_program.h"
#include "lab/runners/compiled_ptx.h"  // ptx_parameter_bits
#include "lab/spec/lab_spec.h"

namespace lb::lab {

// What the compile process hands back, once checked: PTX text defining `entry`, a kernel whose
// parameters are the lab's as a Numba kernel takes them.
struct NumbaPtx {
  std::string ptx;
  std::string entry;
  double compile_ms = 0;  // the compile process, start to end
};

// The largest result the child reads (a kernel's PTX is tens of KiB; with debug info, a few MiB).
constexpr std::uintmax_t kMaxNumbaResultBytes = 16ull << 20;

// `file`'s kernel compiled for sm_<sm> by python -m layerbench.lab.numba_compile in a compile
// process (run_python_compile, compiled_ptx.h), with source lines or as a debug build as `build`
// says. What the process printed goes to this process's standard error, capped (the student's
// output, never parsed). StudentCompileError, in one line then the process's output, when it fails,
// times out, or hands back no result or one that does not pass numba_result().
NumbaPtx compile_numba_kernel(const LabSpec& spec, const std::filesystem::path& file, int sm,
                              const StudentBuild& build);

// The compile process's result file (JSON {"ptx": TEXT, "entry": NAME}), checked: a regular file of
// at most kMaxNumbaResultBytes, the entry a PTX identifier that the PTX defines as a kernel
// (.entry) whose parameters have the widths `parameter_bits` lists (lab_kernel.h). Throws
// StudentCompileError naming what is wrong.
NumbaPtx numba_result(const std::filesystem::path& result, const std::vector<int>& parameter_bits);

}  // namespace lb::lab
