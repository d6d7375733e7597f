#include "lab/runners/host_trip/trip_clock.h"

#include <string>

#include "common/median.h"
#include "harness/sampling.h"
#include "lab/runners/host_trip/trip_feedback.h"

namespace lb::lab {
namespace {

std::string who_text(TripOf who) { return who == TripOf::kOurs ? "our" : "the student's"; }

std::string where(const TripMark& m) {
  return who_text(m.who) + " trip at " + m.size + ", sample " + std::to_string(m.sample);
}

}  // namespace

void TripClock::mark(const TripMark& m, double arrival_s) {
  Series& s = series_[{m.size, m.who}];
  const std::size_t next = s.ms.size() + s.untimed;
  if (!m.end) {
    if (s.open) throw ChildProtocolError("a trip start mark (" + where(m) + ") while sample " + std::to_string(next) + " was under way");
    if (m.sample != next)
      throw ChildProtocolError("a trip start mark (" + where(m) + ") where sample " + std::to_string(next) + " was next");
    s.open = true;
    s.started_s = arrival_s;
    return;
  }
  if (!s.open || m.sample != next) throw ChildProtocolError("a trip end mark (" + where(m) + ") without its start mark");
  s.open = false;
  // Both marks in one read: this process was busy elsewhere when the trip started: no time.
  if (arrival_s <= s.started_s) {
    ++s.untimed;
    return;
  }
  s.ms.push_back((arrival_s - s.started_s) * 1e3);
}

std::vector<double> TripClock::trips_ms(const std::string& size, TripOf who) const {
  const auto found = series_.find({size, who});
  return found == series_.end() ? std::vector<double>{} : found->second.ms;
}

std::size_t TripClock::untimed(const std::string& size, TripOf who) const {
  const auto found = series_.find({size, who});
  return found == series_.end() ? 0 : found->second.untimed;
}

Figures figures_of_trips(const std::vector<double>& trips_ms, double upload_bytes, const std::string& stop,
                         double handover_ms) {
  SampleSeries series;
  for (double ms : trips_ms) series.add(ms);
  Figures f;
  f.median_ms = median(trips_ms);
  f.samples = trips_ms.size();
  f.noise = series.rel_stddev();
  // A hand-over that is not less than the median (a stand-in child's figures) leaves the median.
  const double own_ms = f.median_ms > handover_ms && handover_ms > 0 ? f.median_ms - handover_ms : f.median_ms;
  f.gbps = own_ms > 0 ? upload_bytes / (own_ms * 1e6) : 0.0;  // bytes per ms -> GB/s
  f.stop = stop;
  return f;
}

void time_trips_by_parent_clock(const LabSpec& spec, const TripClock& trips, ChildReport& report) {
  const auto fail = [&report](const std::string& why) {
    if (report.protocol_error.empty()) report.protocol_error = why;
  };
  for (BenchmarkEvent& event : report.benchmarks) {
    auto* timed = std::get_if<BenchmarkTimed>(&event);
    if (!timed) continue;
    const Shape* shape = nullptr;
    for (const Shape& s : spec.benchmark_sizes)
      if (spec.workload->size_label(s) == timed->size) shape = &s;
    if (!shape) return fail("a benchmark line for " + timed->size + ", which is not one of the lab's benchmark sizes");
    const double upload = trip_bytes(*spec.workload, *shape).upload;
    // The parent's times replace the child's; the child's counts must agree with the marks.
    const auto replace = [&](Figures& figures, TripOf who) {
      const std::vector<double> ms = trips.trips_ms(timed->size, who);
      const std::size_t untimed = trips.untimed(timed->size, who);
      if (ms.size() + untimed != figures.samples || ms.size() < kMinTimedTrips) {
        fail("a benchmark line for " + timed->size + " that counts " + std::to_string(figures.samples) + " of " +
             who_text(who) + " trips, with " + std::to_string(ms.size()) + " timed by their marks and " +
             std::to_string(untimed) + " whose marks arrived together (at least " + std::to_string(kMinTimedTrips) +
             " timed)");
        return false;
      }
      // Ours' hand-over is the same copy by the same child: the student's measure stands for both.
      figures = figures_of_trips(ms, upload, figures.stop, timed->handover_ms);
      return true;
    };
    if (!replace(timed->student, TripOf::kStudent)) return;
    if (timed->ours && !replace(*timed->ours, TripOf::kOurs)) return;
  }
}

void TripNotes::read(const ChildEvent& event, double arrival_s) {
  const auto* own = std::get_if<RunnerEvent>(&event);
  if (!own) return;  // every child's lines: the report's
  const TripEvent trip = trip_event(*own);
  if (const auto* mark = std::get_if<TripMark>(&trip)) trips.mark(*mark, arrival_s);
  else host_buffers.push_back(std::get<HostBuffers>(trip));
}

void TripNotes::finish(const LabSpec& spec, ChildReport& report) { time_trips_by_parent_clock(spec, trips, report); }

}  // namespace lb::lab
