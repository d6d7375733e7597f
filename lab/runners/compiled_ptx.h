// What a Python runner's compile process (compile_process.h) hands back, read by the child that
// started it before anything of it is used: the result file (a regular file of ours, of bounded
// size) and the PTX's kernel entry. The numba runner's and the triton runner's checks of their own
// fields (lab/runners/numba/numba_kernel.h, lab/runners/triton/triton_kernel.h) build on these.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace lb::lab {

// The text of the result file `result`: a regular file (not a link, not a folder) of at most
// `max_bytes`. Throws StudentCompileError ("the compile process handed back no kernel", or its size
// against the cap) otherwise.
std::string compile_result_text(const std::filesystem::path& result, std::uintmax_t max_bytes);

// Whether `entry` is a PTX identifier of at most 4096 characters (what a result's entry must be
// before it is looked for in the PTX or handed to the driver).
bool is_ptx_identifier(const std::string& entry);

// The widths in bits of the parameters of `entry` in `ptx`, in order. Throws StudentCompileError
// when the PTX defines no such kernel.
std::vector<int> ptx_parameter_bits(const std::string& ptx, const std::string& entry);

}  // namespace lb::lab
