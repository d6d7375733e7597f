// The host trip's own lines between its child and the parent (RunnerEvent, lab/child/child_event.h),
// besides the lines every child writes:
//   TripMark     {"event": "trip", "mark": "start", "benchmark": "67108864", "who": "student",
//                 "sample": 0}   and then the same with "mark": "end": written (and flushed) just
//                before the timed trip of sample `sample` starts and just after it has ended; "who"
//                is "student" or "ours". The parent times each trip from when the two lines reach it,
//                on its own clock (trip_clock.h): its marks must come in order, start then end,
//                samples 0, 1, 2, ... for each benchmark and who, and a BenchmarkTimed line counts
//                the same samples.
//   HostBuffers  {"event": "host_buffers", "benchmark": "67108864", "a": "pinned", "b": "pageable",
//                 "c": "pinned"}   what the student's lab_host_alloc gave at that size
//                (cudaPointerGetAttributes): page-locked or pageable host memory
// A field missing or of the wrong type, or another "event", is a ChildProtocolError naming it.
#pragma once
#include <cstddef>
#include <string>
#include <variant>

#include "lab/child/child_event.h"

namespace lb::lab {

enum class TripOf { kStudent, kOurs };
struct TripMark {
  std::string size;  // the benchmark's size label ("67108864")
  TripOf who = TripOf::kStudent;
  std::size_t sample = 0;
  bool end = false;  // false: the trip is about to start; true: it has ended
  friend bool operator==(const TripMark&, const TripMark&) = default;
};
struct HostBuffers {
  std::string size;
  bool a_pinned = false, b_pinned = false, c_pinned = false;
  friend bool operator==(const HostBuffers&, const HostBuffers&) = default;
};
using TripEvent = std::variant<TripMark, HostBuffers>;

// The line the child writes.
inline RunnerEvent runner_event(const TripMark& m) {
  return {"trip", {{"event", "trip"}, {"mark", m.end ? "end" : "start"}, {"benchmark", m.size},
                   {"who", m.who == TripOf::kOurs ? "ours" : "student"}, {"sample", m.sample}}};
}
inline RunnerEvent runner_event(const HostBuffers& b) {
  const auto memory = [](bool pinned) { return pinned ? "pinned" : "pageable"; };
  return {"host_buffers", {{"event", "host_buffers"}, {"benchmark", b.size}, {"a", memory(b.a_pinned)},
                           {"b", memory(b.b_pinned)}, {"c", memory(b.c_pinned)}}};
}

// The event a runner's line is, as the parent reads it; ChildProtocolError when it is none.
inline TripEvent trip_event(const RunnerEvent& e) {
  if (e.event == "trip") {
    const EventFields f(e.line, "trip");
    TripMark m;
    m.end = f.one_of("mark", "end", "start");
    m.size = f.text("benchmark");
    m.who = f.one_of("who", "ours", "student") ? TripOf::kOurs : TripOf::kStudent;
    m.sample = f.count("sample");
    return m;
  }
  if (e.event == "host_buffers") {
    const EventFields f(e.line, "host_buffers");
    return HostBuffers{f.text("benchmark"), f.one_of("a", "pinned", "pageable"), f.one_of("b", "pinned", "pageable"),
                       f.one_of("c", "pinned", "pageable")};
  }
  throw unknown_event(e);
}

}  // namespace lb::lab
