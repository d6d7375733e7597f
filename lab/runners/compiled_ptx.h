// A Python runner's compile process (compile_process.h): its run over a copy of the student's file,
// and what it hands back, read by the child that started it before anything of it is used: the
// result file (a regular file of ours, of bounded size) and the PTX's kernel entry. The numba
// runner's and the triton runner's own arguments and checks of their own fields
// (lab/runners/numba/numba_kernel.h, lab/runners/triton/triton_kernel.h) build on these.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lab/child/student_program.h"  // StudentBuild
#include "lab/child/student_sandbox.h"  // SandboxRules
#include "lab/spec/lab_spec.h"
#include "variants/driver/kernel_program.h"  // driver::CompiledProgram

namespace lb::lab {

// What differs between the Python runners' compiles: the command is
//   python -m MODULE FILE KERNEL TYPES SM kernel.json [OPTIONS...] [--lineinfo] [--debug]
// (TYPES comma-joined), run in a working folder of its own holding a copy of FILE.
struct PythonCompile {
  std::string tool;                           // "Numba": messages say "<file>: Numba's compile of <kernel>"
  std::string module;                         // "layerbench.lab.numba_compile"
  std::vector<std::string> argument_types;    // the lab's arguments as the module reads them
  std::vector<std::string> options = {};      // the runner's own, after the result's name
  std::vector<std::string> environment = {};  // "NAME=value", beside allowed_environment()
  // An exit status that says the machine lacks something (not the student's file), and what to
  // install then; -1: none.
  int missing_tool_exit_status = -1;
  std::string missing_tool_hint = {};
  // What the process may do beyond the ordinary (student_sandbox.h): Numba's compile starts no
  // process; Triton's runs ptxas.
  SandboxRules rules = {};
};

// Runs `compile` over a copy of `file` for the lab's kernel and sm_<sm>, with source lines or as a
// debug build as `build` says, under the compile process's default limits, then calls
// `read_result` with the result file's path while the working folder still exists. What the
// process printed is the student's output: it goes to this process's standard error, capped,
// never parsed. Returns the process's time, start to end, in ms. StudentCompileError, in one line
// then the process's output, when the process fails, times out, or `read_result` throws
// StudentCompileError; UsageError when `file` cannot be read.
double run_python_compile(const PythonCompile& compile, const LabSpec& spec, const std::filesystem::path& file, int sm,
                          const StudentBuild& build,
                          const std::function<void(const std::filesystem::path& result)>& read_result);

// The text of the result file `result`: a regular file (not a link, not a folder) of at most
// `max_bytes`. Throws StudentCompileError ("the compile process handed back no kernel", or its size
// against the cap) otherwise.
std::string compile_result_text(const std::filesystem::path& result, std::uintmax_t max_bytes);

// The widths in bits of the parameters of `entry` in `ptx`, in order. Throws StudentCompileError
// when the PTX defines no such kernel.
std::vector<int> ptx_parameter_bits(const std::string& ptx, const std::string& entry);

// A result's PTX and entry, checked before either is looked for in the PTX or handed to the
// driver: `entry` a PTX identifier of at most 4096 characters, `ptx` without a NUL byte, and the
// PTX defining `entry` as a kernel whose parameters have the widths `parameter_bits` lists. Throws
// StudentCompileError naming what is wrong; a count that differs is said as "... not the N
// <whose_parameters>" ("the lab's arguments make as Numba passes them").
void check_ptx_entry(const std::string& ptx, const std::string& entry, const std::vector<int>& parameter_bits,
                     const std::string& whose_parameters);

// The PTX as the driver layer's Module takes a program: cuModuleLoadData takes PTX text (its NUL at
// the end, which std::string keeps) as it takes a cubin, and compiles it for the GPU in use.
driver::CompiledProgram ptx_program(const std::string& ptx);

}  // namespace lb::lab
