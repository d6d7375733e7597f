// Step 3 of a run: every case in order, each under Google Benchmark (one registration at a time,
// so only one case's buffers are alive at once): prepare -> verify (prepare.h), time (measure.h),
// and the figures recorded on the case's result. Progress goes to stderr.
#pragma once
#include <vector>

#include "harness/case.h"
#include "harness/environment.h"
#include "harness/layer_sessions.h"
#include "harness/progress.h"
#include "harness/reporter.h"

namespace lb {

std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const Environment& env, LayerSessions& sessions,
                                  SuiteReporter& reporter, Progress& progress);

}  // namespace lb
