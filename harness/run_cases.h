// Step 3 of a run: every case in order, each prepared and verified (prepare.h), then timed under
// Google Benchmark (measure.h; one registration at a time, so only one case's buffers are alive at
// once), or, in a check (MeasureOptions::check_only), only prepared and verified. Progress goes
// to stderr.
#pragma once
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/environment.h"
#include "harness/layer_sessions.h"
#include "harness/progress.h"
#include "harness/reporter.h"

namespace lb {

// A GPU case that leaves the CUDA context dead (a sticky error: an illegal address, a trap) fails
// with CUDA's text; every later GPU case is skipped, saying so, and the CPU cases still run. After
// an interrupt (interrupt.h) the case under way is marked interrupted and no further case starts.
// Reads the probe under `when`; a failure (a dead context) is one line on stderr, not an error.
void read_context_probe(ContextProbe& probe, const std::string& when);

std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const Environment& env, LayerSessions& sessions,
                                  SuiteReporter& reporter, Progress& progress);

}  // namespace lb
