// What a student of the host trip (runner host-trip, labs/08-transfer) reads about their
// trip: what limits it (pageable copies, no overlap, too few chunks, or the link itself), and why
// a wrong result is wrong. Pure functions of measured figures and host arrays, tested without a
// GPU (tests/test_lab_transfer.cpp). The thresholds are explained in labs/08-transfer/README.md.
#pragma once
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "workloads/workload.h"

namespace lb::lab {

// The host link, measured in the timing child before any trip (lab/runners/host_trip/host_link.h), in decimal
// GB/s: copies of page-locked (pinned) host memory each way, the best of one stream and two;
// copies of pageable (malloc'd) memory each way; and each direction while the other runs too.
// 0: not measured.
struct LinkBandwidth {
  double h2d_gbps = 0, d2h_gbps = 0;
  double h2d_pageable_gbps = 0, d2h_pageable_gbps = 0;
  double duplex_h2d_gbps = 0, duplex_d2h_gbps = 0;
  friend bool operator==(const LinkBandwidth&, const LinkBandwidth&) = default;
};
// As the timing child's environment line carries them ("ceilings": {"h2d_gbps": ..., ...}), and
// back (absent or non-number fields read as 0).
nlohmann::json link_json(const LinkBandwidth& link);
LinkBandwidth link_from_json(const nlohmann::json& ceilings);

// What one trip moves across the link: every input up, the output down.
struct TripBytes {
  double upload = 0, download = 0;
};
TripBytes trip_bytes(const Workload& workload, const Shape& shape);

// What the grade knows of the student's trip at one benchmark size.
struct TripFacts {
  TripBytes bytes;
  double trip_ms = 0;  // the student's median (the parent's clock), less the hand-over of a and b
  bool a_pinned = true, b_pinned = true, c_pinned = true;
  LinkBandwidth link;
};

// The thresholds of limiter_line (README, "What limits your trip"), as the share of the gap
// between the link's bound and the serial time that the trip's time lies at: 0 at the bound, 1 at
// the copies one after another.
// No overlap: at least as long as the copies one after another, less 5% of the gap for the noise
// of the two medians (the link's and the trip's). Copies in one stream cannot beat the link's best
// rate, so a trip without overlap lies at or beyond 1 (no_overlap.cu: 1.16 on the H100, its kernel
// and calls added), while one that overlaps even two chunks lies clearly below it (too_few_chunks.cu:
// 0.63 and 0.83 on the H100, the overlap of its one window varying from run to run; at 0.8 it was
// called no overlap).
constexpr double kNoOverlapShare = 0.95;
constexpr double kAtLinkShare = 0.25;      // at most this far: at the link
constexpr double kSlowerThanSerial = 1.5;  // beyond this factor of the serial time: something else

// One line naming what limits the trip: pageable copies (some buffer is pageable), no overlap
// (the copies one after another), too few chunks (overlapped, but the first upload and the last
// download stick out), at the link, or slower than the copies alone (something else takes the
// time). Empty when the link was not measured.
std::string limiter_line(const TripFacts& facts);

// The trip's time bounds, in ms, from the link's pinned rates: the copies one after another, and
// what a perfectly overlapped trip cannot beat. The latter is not the longer direction alone: while
// both directions run they share the link (on the lent H100, 55 GB/s each way alone, about 43 up
// and 52 down at once), so the shorter direction runs at its duplex rate beside the longer one,
// which then finishes alone at its own rate. Without duplex rates, the longer direction alone.
double serial_ms(const TripBytes& bytes, const LinkBandwidth& link);
double bound_ms(const TripBytes& bytes, const LinkBandwidth& link);

// c (n elements) after a trip, against the workload's reference: empty when right; else one line.
// An end of c still holding its poison, from element f > 0 on, is a copy that stopped short:
// "elements from f on were never written ...: did every chunk's copy cover its elements, including
// the last, shorter chunk?"; all of c unwritten, a trip that never downloaded c. Otherwise the
// labs' explain_result (lab/grading/feedback.h).
std::string explain_trip_result(const Workload& workload, const HostProblem& problem, std::span<const float> got);

}  // namespace lb::lab
