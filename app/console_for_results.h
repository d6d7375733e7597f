// Standard output kept for the results alone: under `-o -` the results JSON is all that goes to
// standard output, so whatever a run prints meanwhile (Google Benchmark's table, the summary) goes
// to standard error; the results are written through the saved standard output.
#pragma once
#include <string>

namespace lb {

class ConsoleForResults {
 public:
  // `out`: where the results go; standard output (kStandardOutput, "-") is kept for them.
  explicit ConsoleForResults(const std::string& out);
  ~ConsoleForResults();
  ConsoleForResults(const ConsoleForResults&) = delete;
  ConsoleForResults& operator=(const ConsoleForResults&) = delete;

  // The results to `out` (write_output). Should that fail after the cases ran, they go to a file of
  // their own in the temporary folder, so that nothing measured is lost, and a UsageError (exit 2)
  // names both.
  void save_results(const std::string& out, const std::string& text);

 private:
  int saved_ = -1;
};

}  // namespace lb
