// Parsing of --size values: "1000", "2^20", and for matmul "MxNxK" or one number for a cube.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "workloads/workload.h"

namespace lb {

// Bad user input: the message is one line that names the bad value. Exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `text` for a one-line message: control characters (a line break, a NUL) as \xNN. What a user
// typed goes through it before it is quoted in an error.
std::string one_line(const std::string& text);

std::int64_t parse_count(const std::string& text);                    // >= 1, or UsageError
Shape parse_shape(const std::string& text, const Workload& workload);  // UsageError when bad
std::string human_bytes(double bytes);                                 // "12.0 GiB"

}  // namespace lb
