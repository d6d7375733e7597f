// The child of the host trip (runner host-trip, labs/08-transfer): the student's file is
// built with nvcc (lab/runners/host_trip/trip_build.h) and loaded only in the trip processes this
// child starts (lab/runners/host_trip/trip_process.h), which run its five functions
// (lab/runners/host_trip/trip.h) on command and never hold a key. Our trip runs in trip processes
// of its own, which never load the student's library. This child owns the keys, the data, the
// checking and the timing: a trip's a and b reach the shared memory only after that trip's start
// mark, and its end mark only after a keyed sample of c (trip_sample.h) shows c written.
//
// Every trip, warm-up, timed or checked, goes the same way (trip_process.h says the protocol):
//   1. before it, outside any clock: its a and b drawn into this child's own memory (TripInputs),
//      its end sample drawn, c poisoned (NaN) and its guard zone set in the shared memory (nothing
//      secret: the student has seen every earlier trip's a and b); "run": the trip process waits
//      for the GPU and replies "ready";
//   2. the start mark (timed trips); then a and b written into the shared memory in parallel, with
//      decoys at the end sample's positions, then those positions' inputs over the decoys (the
//      hand-over, TripInputs::hand_over: in both trips' clocks alike, measured apart on this
//      child's clock for the feedback and the trip's own rate, never for the grade: handover_ms);
//      then "go";
//   3. on "ran": the end sample read in c; a mismatch fails the trip ("the trip said it had ended
//      before c was written"); else the end mark (timed trips);
//   4. after it, outside any clock: the guard and all of c verified against the trip's inputs in
//      the shared memory (and in check mode, a and b unchanged).
//
// check: per check size, lab_host_alloc's choice of memory for a, b and c (c with a guard zone of
//   64 KiB after its n floats), lab_setup(n), one trip, lab_teardown; the launch errors and every
//   cudaError_t checked. One SizeChecked line each; the check stops after a trip whose "ran" came
//   early (its trip process is out of step) or after a fault that leaves the context unusable.
// time: the host link measured (lab/runners/host_trip/host_link.h, the environment line's ceilings)
//   after the build and before the student's library is loaded, and reported then. Then at each
//   benchmark size: ours timed in a trip process of ours alone, started before the student's; then
//   the student's, in a trip process of its own; then, once that has exited and
//   end_student_processes (lab/child/student_sandbox.h) has ended whatever the student's code
//   left, so that no student process and no student GPU work is left, ours again in a fresh trip
//   process of ours alone. Each series: 2 verified warm-ups, then timed trips until its noise is
//   under 1% (at least 10 each), its time cap (5 s the student's, 2.5 s
//   each of ours) or its sample cap (40, 20 each of ours). Ours' figure is the median of both of
//   its series: a slow spell of the host or the link during one of ours moves it less than it
//   would a single series, and one during the student's is bracketed by two of ours (the series
//   were once interleaved in one trip process, where the student's threads could slow ours). Each
//   timed trip is between two mark lines (trip_event.h, TripMark), which the parent times
//   (lab/runners/host_trip/trip_clock.h); ours' samples are numbered on across its two series.
// The events go out on a private copy of standard output; standard output itself is pointed at
// standard error before anything runs, so nothing the trip processes print can pass for an event.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>

#include "lab/child/child_process.h"
#include "lab/runners/host_trip/trip_sample.h"
#include "workloads/workload.h"

namespace lb::lab {

// The inputs of the trips a grade runs at one size: before trip t (warm-ups first, from 0), a and
// b are new values, vector_add's own problem drawn at trip_seed(the size's case seed, t) (the
// counter-based generator, in parallel, on the host), never a window, shift or permutation of an
// earlier trip's. A trip that keeps its last device copies and uploads only what changed finds
// nothing in common with the last trip's inputs: it pays the full upload, or its c is wrong and
// the trip's check fails (labs/08-transfer/wrong/uploads_only_changes.cu). The values go
// into the same host buffers every trip, so nothing about the pointers says that anything changed.
class TripInputs {
 public:
  // `seed`: the grade's (secret) seed; each size draws from case_seed(seed, workload, shape).
  TripInputs(const Workload& workload, const Shape& shape, std::uint64_t seed);
  // Trip `trip`'s a and b drawn into the runner's copy (problem()), its end sample drawn, and `c`
  // (the shared memory's) poisoned: the host milliseconds that took, before the trip's clock.
  double draw(std::int64_t trip, std::span<float> c);
  // The drawn a and b written into `a` and `b` (the shared memory): the hand-over, after the trip's
  // start mark; the host milliseconds it took. In two steps: a and b copied in parallel, with
  // decoys at the end sample's positions (values drawn as the inputs are, from another key: nothing
  // tells them from inputs); then each of those positions set to its input. A trip that pulls a
  // and b while they arrive (a thread or a kernel watching the shared memory, which would overlap
  // its upload with the hand-over and gain its time against ours) has decoys where the end sample
  // reads, unless it reads a and b again after the hand-over: all of them, since it cannot know
  // which positions changed. After hand_over, problem() holds the inputs again.
  double hand_over(std::span<float> a, std::span<float> b);
  // The last drawn trip's inputs and c's starting contents: what its c is verified against
  // (the runner's own copy, which the student's code is not given).
  const HostProblem& problem() const { return problem_; }
  // The last drawn trip's end sample (trip_sample.h).
  const EndSample& end_sample() const { return sample_; }
  // Trip `trip`'s seed: HMAC-SHA256 of the trip's index under the size's case seed (keyed_hash).
  static std::uint64_t trip_seed(std::uint64_t case_seed, std::int64_t trip);

 private:
  std::uint64_t case_seed_ = 0;
  HostProblem problem_;  // its seed: the last drawn trip's
  EndSample sample_;
  // Between draw and hand_over, problem_'s a and b hold the decoys at the sample's positions, and
  // these the inputs there.
  HostBuffer held_a_, held_b_;
};

// The child of a host trip: its events to `out`, its exit status.
int run_host_trip_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                       std::FILE* out);

}  // namespace lb::lab
