// Where a student's kernel text is compiled: never in a process that holds the grade's secret or
// keys (the parent, the lab child), but in a compile process of its own (lab/runners/compile_process.h:
// a fresh exec, rlimits, a wall-clock limit, its own folder, a scrubbed environment, no capability),
// which runs layerbench's hidden helper `layerbench lab run-helper nvrtc SM NAME [OPTION...]`
// (run_kernel_compile_helper): NVRTC on the folder's copy of the text, for sm_SM, the CUBIN written
// to the folder. The process that asked reads back only the exit status, NVRTC's log and the CUBIN.
// A compile bomb (a template instantiated 2^19 times, an #include the rules missed) then costs at
// most the wall limit or the address-space limit, and ends in one line the student reads:
// "did not compile: the compiler ran past 30 s" (or "... past 4096 MiB of memory").
// The labs that use it: the nvrtc runner (precheck and child: lab_kernel.h's compile_student_kernel)
// and the pycuda and cuda-core runners, whose child loads the CUBIN through its layer's own loader.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "variants/driver/kernel_program.h"

namespace lb::lab {

// The compile process's limits. Measured on a 2-core CPU machine: layerbench maps about 0.9 GiB of
// address space as it starts (cuBLAS's libraries, OpenBLAS), and the lab 4 solution compiles under
// `prlimit --as` of 1.1 GiB but not of 1 GiB; every lab solution's helper run takes 0.2-0.45 s
// (0.2 s of it starting layerbench). 4 GiB is about 4 times what a solution needs, 30 s a hundred
// times its compile; a template bomb of 2^20 classes fills the 4 GiB in about 25 s.
struct KernelCompileLimits {
  static constexpr double kWallSeconds = 30;
  static constexpr unsigned long long kAddressSpace = 4ull << 30;
  double wall_s = kWallSeconds;
  unsigned long long address_space = kAddressSpace;
  // The layerbench executable that runs the helper; empty: set_kernel_compile_program's, else this
  // process's own (/proc/self/exe).
  std::filesystem::path program;
};

// The layerbench executable every compile process runs where its limits name none: for a program
// other than layerbench that grades (a test executable, which would otherwise start itself again,
// every one of its tests, for each compile: tests/lab_test_support.h sets it). Empty: /proc/self/exe.
void set_kernel_compile_program(const std::filesystem::path& layerbench);

// The line a compile that ran past a limit ends with.
std::string ran_past_time_line(double wall_s);
std::string ran_past_memory_line(unsigned long long address_space);

// `text` (named `name` in NVRTC's messages) compiled for sm_<sm> with NVRTC's layer options and
// `options`, in the compile process, through the driver layer's kernel cache when `use_cache` (the
// key is the text's, so a hit serves the same text alone; the cache is read and written here,
// never by the compile process). StudentCompileError with NVRTC's log when it does not compile, or
// with the ran-past line; std::runtime_error when the process cannot run.
driver::CompiledProgram compile_in_limited_process(const std::string& name, const std::string& text, int sm,
                                                   const std::vector<std::string>& options, bool use_cache,
                                                   const KernelCompileLimits& limits = {});

// The helper itself (NvrtcRunner::run_helper): args SM NAME [OPTION...]; reads source.cu in the
// working folder, writes kernel.cubin there and NVRTC's log to standard output. Exit status 0
// compiled, 1 did not compile, 3 out of memory, 2 anything else (said on standard error).
int run_kernel_compile_helper(const std::vector<std::string>& args);

}  // namespace lb::lab
