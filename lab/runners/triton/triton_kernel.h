// A Triton lab's kernel, compiled away from the child (lab/runners/triton/triton_runner.h): the
// compile process's result, checked before anything of it is used.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lab/child/student_program.h"
#include "lab/spec/lab_spec.h"

namespace lb::lab {

// What the compile process hands back, once checked: PTX text defining `entry`, a kernel whose
// parameters are the lab's then Triton's two trailing pointers (lab_kernel.h's KernelAbi::kTriton),
// compiled for `num_warps` warps (its block: num_warps * 32 threads), needing `shared_bytes` of
// dynamic shared memory per block.
struct TritonPtx {
  std::string ptx;
  std::string entry;
  unsigned num_warps = 0;
  unsigned shared_bytes = 0;
  double compile_ms = 0;  // the compile process, start to end
};

// The largest result the child reads (a Triton kernel's PTX is tens of KiB), and the most dynamic
// shared memory a result may ask for (an H100's or H200's 227 KiB per block; the launch fails on a
// GPU with less).
constexpr std::uintmax_t kMaxTritonResultBytes = 16ull << 20;
constexpr unsigned kMaxTritonSharedBytes = 227u << 10;

// `file`'s kernel compiled for sm_<sm> by python -m layerbench.lab.triton_compile in a compile
// process (run_python_compile, compiled_ptx.h) with the lab's block / 32 warps, with source lines
// or as a debug build as `build` says. Its Triton cache is the process's working folder's
// (triton_compile.py sets it there), removed with it. What the process printed goes to this
// process's standard error, capped (the student's output, never parsed). StudentCompileError, in
// one line then the process's output, when it fails, times out, or hands back no result or one that
// does not pass triton_result().
TritonPtx compile_triton_kernel(const LabSpec& spec, const std::filesystem::path& file, int sm,
                                const StudentBuild& build);

// Why the triton runner cannot compile here, in one line naming what to install: the Python
// layerbench uses (chosen_python(), in the compile process's environment) cannot import triton.
// Empty when it can. Starts that Python once (a second or two: Triton's import).
std::string triton_unavailable_reason();

// The exit status of the compile process when it cannot import triton (a machine without it, not
// the student's file).
constexpr int kTritonCompileNoTriton = 3;

// The lab's block in threads (a folder lab's from workload.json), which a Triton kernel's num_warps
// must make: 32 per warp, one dimension. StudentCompileError when it cannot (the lab's mistake).
unsigned triton_block_threads(const LabSpec& spec);

// The compile process's result file (JSON {"ptx": TEXT, "entry": NAME, "num_warps": N,
// "shared_bytes": B}), checked: a regular file of at most kMaxTritonResultBytes, exactly those
// fields with those types, the entry a PTX identifier that the PTX defines as a kernel (.entry)
// whose parameters have the widths `parameter_bits` lists, num_warps * 32 == `block_threads` (and
// the PTX's .reqntid, where it states one, the same), shared_bytes at most kMaxTritonSharedBytes.
// Throws StudentCompileError naming what is wrong.
TritonPtx triton_result(const std::filesystem::path& result, const std::vector<int>& parameter_bits,
                        unsigned block_threads);

}  // namespace lb::lab
