// The parent's clock on the host trip (runner host-trip): the student's host code runs in a trip
// process of its own (trip_process.h), but the child that times it is a process the student's
// code could, where the sandbox is weaker, reach (and a clock read in the same address space as
// the measured code was once overwritable by a stray pointer). So the time that grades is the
// parent's: the child writes a mark line just before each timed trip (before the trip's a and b
// are handed over) and another just after it has ended (after the child's own check of a sample of
// c, trip_sample.h) (trip_event.h, TripMark), and the parent times each trip from when the two
// lines reached it (ChildOutcome::out_line_s). Our trip is timed the same way, so the pipe's latency
// (microseconds, against a trip of milliseconds), the hand-over and the end sample are charged to
// both.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab/child/child_process.h"
#include "lab/runners/host_trip/trip_event.h"

namespace lb::lab {

// Fewest timed trips a benchmark line may count: a median of fewer says too little.
constexpr std::size_t kMinTimedTrips = 10;

class TripClock {
 public:
  // A mark that arrived `arrival_s` seconds after the child started (the parent's clock).
  // ChildProtocolError when it is out of order: a start while a trip is under way, an end without
  // its start, a sample other than the next. An end that arrived with its start (the parent read
  // both at once, busy elsewhere while the trip ran: it cannot say how long it took) leaves that
  // sample untimed, as the harness drops a sample taken while the GPU was throttled.
  void mark(const TripMark& mark, double arrival_s);
  // The timed trips of `who` at benchmark `size`, in milliseconds, in sample order; empty when none.
  std::vector<double> trips_ms(const std::string& size, TripOf who) const;
  // How many of its samples were left untimed.
  std::size_t untimed(const std::string& size, TripOf who) const;

 private:
  struct Series {
    std::vector<double> ms;
    std::size_t untimed = 0;
    bool open = false;  // a start arrived, its end not yet
    double started_s = 0;
  };
  std::map<std::pair<std::string, TripOf>, Series> series_;
};

// Figures of a trip from the parent's times: median, noise and count of `trips_ms`, its rate the
// bytes it uploads over the median less `handover_ms` (GB/s: the trip's own time, which the link
// bound is about; the hand-over of a and b is inside the timed trip, trip_child.h), and `stop` (why
// the child stopped sampling) kept.
Figures figures_of_trips(const std::vector<double>& trips_ms, double upload_bytes, const std::string& stop,
                         double handover_ms = 0);

// Each benchmark line's figures, the student's and ours, replaced by the parent's, from the marks
// (`trips`). A line whose marks are missing, or count other
// trips than the line does (timed and untimed), or fewer than kMinTimedTrips timed, sets report.protocol_error: a grade
// then trusts none of that child's timings.
void time_trips_by_parent_clock(const LabSpec& spec, const TripClock& trips, ChildReport& report);

// What the parent keeps of a host trip's own events (Runner::child_notes): its marks, timed where
// they arrive, and what its host buffers were; finish() times the trips by the parent's clock.
class TripNotes final : public ChildNotes {
 public:
  void read(const ChildEvent& event, double arrival_s) override;
  void finish(const LabSpec& spec, ChildReport& report) override;
  TripClock trips;
  std::vector<HostBuffers> host_buffers;
};

}  // namespace lb::lab
