// How every output of layerbench is written (results, reports' inputs, grades): never destroying
// what its path points at.
#pragma once
#include <stdexcept>
#include <string>

namespace lb {

// What the output options take for standard output ("-o -").
inline constexpr const char* kStandardOutput = "-";

// A results file, a grade or a report could not be written (after the work that made it).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to the output `path` names, never destroying what the path points at:
//   "-"                        standard output;
//   a symlink                  followed (through every link) to its target, written as below;
//   a device, FIFO or socket   written straight through (/dev/null works; a full device fails);
//   a regular file, or nothing a temporary file beside it, renamed over it: a reader never sees
//                              half a file, and a killed process leaves the old one whole.
// Throws OutputError naming the path on failure.
void write_output(const std::string& path, const std::string& text);

// Fails early (UsageError) when `path` cannot be written, creating missing parent directories. A
// device or FIFO is checked for permission only (opening a FIFO would wait for a reader).
void check_writable(const std::string& path);

}  // namespace lb
