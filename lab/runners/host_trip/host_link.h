// The host link of the GPU (PCIe, or NVLink-C2C on a Grace Hopper), measured in the timing child
// of the host trip, before any trip: the ceiling the student's trip is read against, and
// the figures its limiter line (lab/runners/host_trip/trip_feedback.h) and its plausibility check use.
#pragma once
#include <cstddef>

#include "lab/runners/host_trip/trip_feedback.h"

namespace lb::lab {

// Each figure: the median of 7 timed copies of `bytes` (after 2 warm-ups), CUDA events around
// each, decimal GB/s. Pinned: cudaMallocHost memory, the best of one stream and the copy split over
// two and over four streams at once (a trip overlaps copies of the same direction too).
// Pageable: memory from operator new, touched first, timed on the host's clock (copy and wait:
// the driver stages such a copy on the host). Duplex: an upload and a download of `bytes`
// each, at once, on two streams (each timed by its own events). Throws CudaError.
LinkBandwidth measure_link(std::size_t bytes = std::size_t{256} << 20);

}  // namespace lb::lab
