// Bad user input, and how what a user typed is quoted in a one-line message. Shared by every
// floor that reads input (app, lab, harness, fuzz).
#pragma once
#include <stdexcept>
#include <string>

namespace lb {

// Bad user input: the message is one line that names the bad value. Exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `text` for a one-line message: control characters (a line break, a NUL) as \xNN. What a user
// typed goes through it before it is quoted in an error.
std::string one_line(const std::string& text);

}  // namespace lb
