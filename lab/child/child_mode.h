// What a child of `lab check|grade|profile` is started to do (`lab run-child --mode`), apart from
// child_process.h so that what only names a mode (the grade's keys) need not include the child.
#pragma once

namespace lb::lab {

// check: the check sizes; time: the benchmark sizes only, timed (`lab grade` runs it after a
// check that passed, each under its own time limit); profile: one run for a profiler;
// environment: the GPU's peaks and ceilings only, the student's file never loaded (before the
// timing child, for a runner whose Runner::environment_apart is true).
enum class ChildMode { kCheck, kTime, kProfile, kEnvironment };

}  // namespace lb::lab
