// What a child of `lab check|grade|profile` is started to do (`lab run-child --mode`), apart from
// child_process.h so that what only names a mode (the grade's keys) need not include the child.
#pragma once

namespace lb::lab {

// check: the check sizes; time: the benchmark sizes only, timed (`lab grade` runs it after a
// check that passed, each under its own time limit); profile: one run for a profiler;
// environment: the GPU's peaks and ceilings only, the student's file never loaded (before the
// timing child, for a runner whose Runner::environment_apart is true).
enum class ChildMode { kCheck, kTime, kProfile, kEnvironment };

// What the timing child's limit allows each benchmark size (lab_grade.cpp adds it per size to the
// lab's time_limit_s), and the most of it the student's timed samples may take (kernel_runner.cpp):
// the rest of a size's share goes to its other host work (the judged run's draw and check, the
// first sample's, ours). A sample whose inputs are drawn and checked on the host costs seconds at
// 64M elements (lab 10 at 65536x1024 on an H100, P27): widened for 12 such samples, the sampling
// alone outran the whole limit, and the grade said "the kernel did not finish".
constexpr double kTimingSecondsPerBenchmarkSize = 30.0;
constexpr double kStudentSamplingMaxSeconds = kTimingSecondsPerBenchmarkSize / 2;

}  // namespace lb::lab
