// Google Benchmark's own flags, passed through `run` and `ladder` (--benchmark_filter=..., ...).
// Google Benchmark reads them without saying much when a value is wrong: a repetition count of 0
// runs nothing, a negative one crashes it, an output file it cannot open makes it exit(1) after the
// cases ran. So the values layerbench's runs depend on are checked here first.
#pragma once
#include <string>
#include <vector>

namespace lb {

// Checks the flags (UsageError, one line naming the flag and its value), then hands them to
// benchmark::Initialize. Anything that is not one of Google Benchmark's flags is a usage error.
void initialize_google_benchmark(const std::vector<std::string>& flags, char* argv0);

}  // namespace lb
