// The grade of the host trip (runner host-trip, labs/08-transfer), as its runner
// (host_trip_runner.h) answers the grade's questions. Its ceiling is the host link's pinned upload bandwidth, measured in the
// same run; a trip's rate is what it uploads over its time; a trip faster than the link allows is
// refused (it skipped work: a copy it did not make, or a result it did not compute in the timed
// trip); and each timed size gets a line naming what limits the trip (lab/runners/host_trip/trip_feedback.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/child/child_event.h"
#include "lab/grading/grading.h"
#include "lab/child/child_process.h"

namespace lb::lab {

// How far above the measured pinned upload bandwidth a trip's upload rate may be before it is
// refused: the link's figure is the median of 7 copies, and two measurements of the same link a
// minute apart differ by a few percent; chunked uploads of a trip are never faster than whole
// ones, so 10% only absorbs that noise.
constexpr double kLinkMargin = 1.1;

// "host-to-device bandwidth", GB/s, the environment's h2d_gbps (0 when not measured).
Ceiling link_ceiling(const std::optional<TimingEnvironment>& environment);

// The highest upload rate a correct trip can show at benchmark size `label`: the measured pinned
// upload bandwidth x kLinkMargin, or unchecked (why) when the link was not measured.
RateLimit link_limit(const LabSpec& spec, const std::string& label, const std::optional<TimingEnvironment>& environment);

// One line per timed benchmark size of a graded trip, naming what limits it (limiter_line), from
// the timing child's report: its link figures and what the student's buffers were.
std::vector<std::string> limiter_feedback(const LabSpec& spec, const ChildReport& timed, const Grade& grade);

}  // namespace lb::lab
