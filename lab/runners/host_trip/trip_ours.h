// Our trip, which a transfer lab's student is timed against (labs/08-transfer): what the lab
// teaches, done well. Pinned host buffers; the vector cut into chunks of 2^21 floats (8 MiB, 32
// chunks at 2^26) issued round-robin over 4 streams, each chunk's two uploads, its kernel and its
// download on one stream, so that the upload of one chunk, the kernel of another and the download
// of a third run at once (the GPU's copy engines move each direction on its own); one wait at the
// end. Compiled into layerbench, launched through the runtime API like the runtime layer.
#pragma once
#include <memory>

#include "lab/runners/host_trip/trip.h"

namespace lb::lab {

std::unique_ptr<Trip> make_our_trip();

// Elements per chunk of our trip for n elements: 2^21, or n when smaller.
long long our_chunk_elements(long long n);

}  // namespace lb::lab
