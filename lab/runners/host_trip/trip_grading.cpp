#include "lab/runners/host_trip/trip_grading.h"

#include "common/format_number.h"
#include "lab/runners/host_trip/trip_clock.h"
#include "lab/runners/host_trip/trip_feedback.h"

namespace lb::lab {
namespace {

LinkBandwidth link_of(const std::optional<TimingEnvironment>& environment) {
  return environment ? link_from_json(environment->ceilings) : LinkBandwidth{};
}

const Shape* benchmark_shape(const LabSpec& spec, const std::string& label) {
  for (const Shape& shape : spec.benchmark_sizes)
    if (spec.workload->size_label(shape) == label) return &shape;
  return nullptr;
}

}  // namespace

Ceiling link_ceiling(const std::optional<TimingEnvironment>& environment) {
  return {"host-to-device bandwidth", "GB/s", link_of(environment).h2d_gbps};
}

RateLimit link_limit(const LabSpec& spec, const std::string& label, const std::optional<TimingEnvironment>& environment) {
  const double h2d = link_of(environment).h2d_gbps;
  if (!(h2d > 0)) return RateLimit::unchecked(Figure::kBandwidth, "the timing child measured no host link");
  const Shape* shape = benchmark_shape(spec, label);
  if (!shape) return RateLimit::unchecked(Figure::kBandwidth, "not one of the lab's benchmark sizes");
  const double upload = trip_bytes(*spec.workload, *shape).upload;
  RateLimit limit;
  limit.figure = Figure::kBandwidth;
  limit.limit = h2d * kLinkMargin;
  limit.bound = "the host-to-device link measured in this run (" + format_number("%.1f", h2d) + " GB/s pinned, with " +
                format_number("%.0f%%", 100.0 * (kLinkMargin - 1.0)) + " for its noise)";
  limit.derivation = "a trip uploads " + format_number("%.0f", upload) + " bytes; at " + format_number("%.1f", h2d) +
                     " GB/s that takes at least " + format_number("%.3f", upload / (h2d * 1e6)) + " ms: at most " +
                     format_number("%.1f", h2d) + " GB/s x " + format_number("%.2f", kLinkMargin) + " = " +
                     format_number("%.1f", limit.limit) + " GB/s";
  return limit;
}

std::vector<std::string> limiter_feedback(const LabSpec& spec, const ChildReport& timed, const Grade& grade) {
  std::vector<std::string> lines;
  if (grade.outcome != GradeOutcome::kGraded) return lines;
  const LinkBandwidth link = link_of(timed.environment);
  const auto* notes = dynamic_cast<const TripNotes*>(timed.notes.get());
  if (!notes) return lines;  // no child ran
  for (const BenchmarkResult& b : grade.benchmarks) {
    const Shape* shape = benchmark_shape(spec, b.size);
    if (!b.student || !shape) continue;
    // The trip's own time: the graded time less the hand-over of a and b (after the start mark, in
    // both trips' times alike, timed apart by the child: trip_child.h), which is no copy of the
    // student's and would otherwise read as a trip slower than its copies.
    const double own_ms = b.student->median_ms - b.handover_ms;
    TripFacts facts{.bytes = trip_bytes(*spec.workload, *shape),
                    .trip_ms = own_ms > 0 ? own_ms : b.student->median_ms,
                    .link = link};
    for (const HostBuffers& memory : notes->host_buffers)
      if (memory.size == b.size) {
        facts.a_pinned = memory.a_pinned;
        facts.b_pinned = memory.b_pinned;
        facts.c_pinned = memory.c_pinned;
      }
    const std::string line = limiter_line(facts);
    if (!line.empty()) lines.push_back(grade.benchmarks.size() > 1 ? "at " + b.size + ": " + line : line);
  }
  return lines;
}

}  // namespace lb::lab
