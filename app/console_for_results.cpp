#include "app/console_for_results.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "common/output_file.h"
#include "common/usage_error.h"

namespace lb {

ConsoleForResults::ConsoleForResults(const std::string& out) {
  if (out != kStandardOutput) return;
  std::fflush(stdout);
  saved_ = ::dup(STDOUT_FILENO);
  if (saved_ >= 0) ::dup2(STDERR_FILENO, STDOUT_FILENO);
}

ConsoleForResults::~ConsoleForResults() {
  if (saved_ < 0) return;
  std::fflush(stdout);
  ::dup2(saved_, STDOUT_FILENO);
  ::close(saved_);
}

void ConsoleForResults::save_results(const std::string& out, const std::string& text) {
  try {
    if (saved_ < 0) return write_output(out, text);
    std::fflush(stdout);
    ::dup2(saved_, STDOUT_FILENO);
    write_output(out, text);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
  } catch (const OutputError& e) {
    if (saved_ >= 0) ::dup2(STDERR_FILENO, STDOUT_FILENO);
    const std::string kept =
        (std::filesystem::temp_directory_path() / ("layerbench-results-" + std::to_string(getpid()) + ".json")).string();
    write_output(kept, text);
    throw UsageError(std::string(e.what()) + "; the results are kept in " + kept);
  }
}

}  // namespace lb
