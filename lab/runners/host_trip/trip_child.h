// The child of the host trip (runner host-trip, labs/08-transfer): the student's file is
// built with nvcc (lab/runners/host_trip/trip_build.h) and loaded only in the trip process this
// child starts (lab/runners/host_trip/trip_process.h), which runs its five functions
// (lab/runners/host_trip/trip.h) on command and never holds a key. This child owns the keys, the
// data, the checking and the timing: it writes each trip's a, b and c's starting contents into the
// shared memory only for that trip, after the last trip's result is in, and verifies c there.
//
// check: per check size, a, b and c from the student's lab_host_alloc (c with a guard zone of
//   64 KiB after its n floats), a and b filled from the check's seed, c poisoned (NaN);
//   lab_setup(n), lab_trip, a device-wide wait; every cudaError_t returned, and the launch errors
//   after, checked; the guard, a and b unchanged, c against the workload's reference; lab_teardown,
//   lab_host_free. One SizeChecked line each.
// time: the host link measured (lab/runners/host_trip/host_link.h, the environment line's ceilings)
//   after the build and before the student's library is loaded, and reported then; then at each
//   benchmark size the student's trip and ours (lab/runners/host_trip/trip_ours.h), both set up, each
//   with 2 warm-up trips, verified, then timed in turn, the student's, ours, the student's, ...
//   (at least 10 each, until both noises are under 1% or 5 s each have passed, at most 40), so that
//   a slow spell slows both. Before each, outside its timed region: fresh inputs (TripInputs, below), c
//   poisoned again, the guard set, and a wait for any GPU work left over. Each timed trip between
//   two mark lines (trip_event.h, TripMark), which the parent times (lab/runners/host_trip/trip_clock.h); after
//   each, warm-up or timed, c verified in full against that trip's inputs and the guard checked.
// The events go out on a private copy of standard output; standard output itself is pointed at
// standard error before the student's code is loaded, so nothing it prints (a kernel's printf,
// which the runtime flushes to stdout) can pass for an event.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>

#include "lab/child/child_process.h"
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
  // Trip `trip`'s a and b drawn into the runner's copy (problem()) and copied into `a` and `b`
  // (the trip process's shared memory, which it copies into the student's buffers), `c` poisoned:
  // the host milliseconds that took, outside the timed trip.
  double prepare(std::int64_t trip, std::span<float> a, std::span<float> b, std::span<float> c);
  // The last prepared trip's inputs and c's starting contents: what its c is verified against
  // (the runner's own copy, which the student's code is not given).
  const HostProblem& problem() const { return problem_; }
  // Trip `trip`'s seed: HMAC-SHA256 of the trip's index under the size's case seed (keyed_hash).
  static std::uint64_t trip_seed(std::uint64_t case_seed, std::int64_t trip);

 private:
  std::uint64_t case_seed_ = 0;
  HostProblem problem_;  // its seed: the last prepared trip's
};

// The child of a host trip: its events to `out`, its exit status.
int run_host_trip_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                       std::FILE* out);

}  // namespace lb::lab
