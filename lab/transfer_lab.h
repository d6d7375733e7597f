// The child of a lab graded end to end (runner nvcc-host, labs/08-transfer): the student's file is
// built with nvcc and loaded (lab/transfer_build.h), and its five functions (lab/trip.h) are run
// by this runner, which owns the data, the checking and the timing.
//
// check: per check size, a, b and c from the student's lab_host_alloc (c with a guard zone of
//   64 KiB after its n floats), a and b filled from the check's seed, c poisoned (NaN);
//   lab_setup(n), lab_trip, a device-wide wait; every cudaError_t returned, and the launch errors
//   after, checked; the guard, a and b unchanged, c against the workload's reference; lab_teardown,
//   lab_host_free. One SizeChecked line each.
// time: the host link measured (lab/transfer_link.h, the environment line's ceilings); then at each
//   benchmark size the student's trip, then ours (lab/transfer_ours.h), each: 2 warm-up trips,
//   verified, then timed trips (at least 10, until their noise is under 1% or 5 s have passed,
//   at most 40). Before each, outside its timed region: fresh inputs (windows of seeded pools a
//   trip cannot have seen), c poisoned again, the guard set, and a wait for any GPU work left
//   over. Each timed trip between two mark lines (child_event.h, TripMark), which the parent times
//   (lab/trip_clock.h); after each, c verified in full and the guard checked.
// The events go out on a private copy of standard output; standard output itself is pointed at
// standard error before the student's code is loaded, so nothing it prints (a kernel's printf,
// which the runtime flushes to stdout) can pass for an event.
#pragma once
#include <cstdio>
#include <filesystem>

#include "lab/lab_check.h"

namespace lb::lab {

int run_transfer_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                       std::FILE* out);

}  // namespace lb::lab
