// Step 5 of a run: the console summary printed after the cases: one line per case, launch overhead
// per layer, what each layer paid once before its first result (one line per layer, added up by
// kind; `verbose`: every cost on its own line), a context probe that moved, and the totals.
#pragma once
#include <string>
#include <vector>

#include "harness/records.h"

namespace lb {

// `results` may hold several repetitions of a case (--benchmark_repetitions): a line each.
void print_summary(const std::vector<CaseResult>& results, const RunContext& context, const std::string& out_path,
                   bool verbose = false);

// After `run --check`: one line per case with its verdict (largest relative error against the
// tolerance) and the time of its one run, end to end on the host clock; then the totals.
void print_check_summary(const std::vector<CaseResult>& results, const RunContext& context,
                         const std::string& out_path);

}  // namespace lb
