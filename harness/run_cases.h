// Step 3 of a run: every case in order, each prepared and verified (prepare.h), then timed by the
// harness's own loop (measure.h; one case at a time, so only one case's buffers are alive at once)
// and shown in Google Benchmark's console table (reporter.h), or, in a check
// (MeasureOptions::check_only), only prepared and verified. Progress goes to stderr.
#pragma once
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/environment.h"
#include "harness/layer_sessions.h"
#include "harness/progress.h"
#include "harness/reporter.h"

namespace lb {

// Reads the probe under `when`; a failure (a dead context) is one line on stderr, not an error.
void read_context_probe(ContextProbe& probe, const std::string& when);

// A GPU case that leaves the CUDA context dead (a sticky error: an illegal address, a trap) fails
// with CUDA's text; every later GPU case is skipped, saying so, and the CPU cases still run. After
// an interrupt (interrupt.h) the case under way is marked interrupted and no further case starts.
// `repetitions` (--benchmark_repetitions): each timed case is measured that many times, one
// CaseResult each (CaseResult::repetition_index), on one preparation; a repetition that does not
// end ok is the case's last.
std::vector<CaseResult> run_cases(const std::vector<Case>& cases, const Environment& env, LayerSessions& sessions,
                                  ConsoleTable& console, Progress& progress, int repetitions = 1);

}  // namespace lb
