#pragma once

namespace lb {
// The `layerbench` command line. Returns the process exit code: 0 success, 1 a case failed,
// 2 bad input (one line on stderr naming the bad value).
int run_cli(int argc, char** argv);
}  // namespace lb
