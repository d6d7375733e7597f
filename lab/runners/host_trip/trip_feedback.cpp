#include "lab/runners/host_trip/trip_feedback.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/format_number.h"
#include "lab/grading/feedback.h"
#include "workloads/problem.h"

namespace lb::lab {
namespace {

std::string ms(double value) { return format_number(value < 10 ? "%.2f ms" : "%.1f ms", value); }
std::string gbps(double value) { return format_number("%.1f GB/s", value); }

// "a", "a and c", "a, b and c"
std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

}  // namespace

nlohmann::json link_json(const LinkBandwidth& l) {
  return {{"h2d_gbps", l.h2d_gbps},
          {"d2h_gbps", l.d2h_gbps},
          {"h2d_pageable_gbps", l.h2d_pageable_gbps},
          {"d2h_pageable_gbps", l.d2h_pageable_gbps},
          {"duplex_h2d_gbps", l.duplex_h2d_gbps},
          {"duplex_d2h_gbps", l.duplex_d2h_gbps}};
}

LinkBandwidth link_from_json(const nlohmann::json& j) {
  const auto get = [&j](const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
  };
  return {get("h2d_gbps"),          get("d2h_gbps"),        get("h2d_pageable_gbps"),
          get("d2h_pageable_gbps"), get("duplex_h2d_gbps"), get("duplex_d2h_gbps")};
}

TripBytes trip_bytes(const Workload& workload, const Shape& shape) {
  TripBytes bytes;
  for (std::int64_t elements : workload.input_elements(shape)) bytes.upload += 4.0 * static_cast<double>(elements);
  bytes.download = 4.0 * static_cast<double>(workload.output_elements(shape));
  return bytes;
}

// bytes / (GB/s) in ms: bytes / (gbps * 1e9) s = bytes / (gbps * 1e6) ms.
double serial_ms(const TripBytes& b, const LinkBandwidth& l) {
  return b.upload / (l.h2d_gbps * 1e6) + b.download / (l.d2h_gbps * 1e6);
}
double bound_ms(const TripBytes& b, const LinkBandwidth& l) {
  const double alone = std::max(b.upload / (l.h2d_gbps * 1e6), b.download / (l.d2h_gbps * 1e6));
  if (!(l.duplex_h2d_gbps > 0 && l.duplex_d2h_gbps > 0)) return alone;
  // Both directions at once until the one that ends first is done, then the other alone.
  const double up_shared = b.upload / (l.duplex_h2d_gbps * 1e6), down_shared = b.download / (l.duplex_d2h_gbps * 1e6);
  const double both = std::min(up_shared, down_shared);
  const double rest = up_shared > down_shared ? (b.upload - l.duplex_h2d_gbps * 1e6 * both) / (l.h2d_gbps * 1e6)
                                              : (b.download - l.duplex_d2h_gbps * 1e6 * both) / (l.d2h_gbps * 1e6);
  return std::max(alone, both + rest);
}

std::string limiter_line(const TripFacts& f) {
  const LinkBandwidth& l = f.link;
  if (!(l.h2d_gbps > 0 && l.d2h_gbps > 0 && f.trip_ms > 0)) return "";
  std::vector<std::string> pageable;
  if (!f.a_pinned) pageable.push_back("a");
  if (!f.b_pinned) pageable.push_back("b");
  if (!f.c_pinned) pageable.push_back("c");
  if (!pageable.empty()) {
    // The direction the pageable buffers are copied in: uploads when an input is pageable.
    const bool up = !f.a_pinned || !f.b_pinned;
    const double slow = up ? l.h2d_pageable_gbps : l.d2h_pageable_gbps, fast = up ? l.h2d_gbps : l.d2h_gbps;
    std::string line = "pageable copies: " + listed(pageable) + (pageable.size() == 1 ? " is" : " are") +
                       " pageable (malloc); the driver stages such a copy through a pinned buffer of its own";
    if (slow > 0) line += ": " + gbps(slow) + " here against " + gbps(fast) + " pinned";
    return line + " — allocate them with cudaMallocHost";
  }
  const double up = f.bytes.upload / (l.h2d_gbps * 1e6), down = f.bytes.download / (l.d2h_gbps * 1e6);
  const double serial = up + down, bound = bound_ms(f.bytes, l);
  const std::string copies = "(up " + ms(up) + ", down " + ms(down) + " at the link's pinned rates, " +
                             gbps(l.h2d_gbps) + " and " + gbps(l.d2h_gbps) + ")";
  if (f.trip_ms > kSlowerThanSerial * serial)
    return "slower than the copies alone: your trip takes " + ms(f.trip_ms) + ", the copies one after another " +
           ms(serial) + " " + copies +
           "; something else takes the time: a slow kernel, many tiny chunks, a synchronisation after every copy, "
           "or memory allocated inside lab_trip";
  // Where the trip lies between the overlapped bound (0) and the copies one after another (1).
  const double share = (f.trip_ms - bound) / std::max(serial - bound, 1e-9);
  if (share >= kNoOverlapShare)
    return "no overlap: your trip takes " + ms(f.trip_ms) + ", as long as the copies one after another " + copies +
           "; split the work into chunks on several streams so that uploads, kernels and downloads overlap";
  const std::string overlapped = ms(bound) + " a fully overlapped trip needs (both directions at once share the link)";
  if (share <= kAtLinkShare)
    return "at the link: your trip takes " + ms(f.trip_ms) + ", within " +
           format_number("%.0f%%", std::max(0.0, 100.0 * (f.trip_ms / bound - 1.0))) + " of the " + overlapped + " " +
           copies + "; only a faster link would make it much faster";
  // Chunks overlap, but the first upload and the last download stick out: with k equal chunks a
  // trip takes about bound + (serial - bound) / k, so the student's time says roughly which k it has
  // (at least 2: the copies overlapped).
  const double chunks = std::max(2.0, std::round(1.0 / std::max(share, 1e-9)));
  return "overlap, but too few chunks: your trip takes " + ms(f.trip_ms) + " against the " + overlapped + " " + copies +
         "; the first chunk's upload and the last chunk's download are not hidden: with k chunks a trip takes "
         "about " +
         ms(bound) + " + " + ms(serial - bound) + " / k, so yours behaves like " + format_number("%.0f", chunks) +
         " chunks; use more, smaller chunks (a few MiB each)";
}

std::string explain_trip_result(const Workload& workload, const HostProblem& problem, std::span<const float> got) {
  const Reference reference = workload.reference(problem);
  const auto n = static_cast<std::int64_t>(got.size());
  std::int64_t first = -1;
  for (std::int64_t i = 0; i < n && first < 0; ++i)
    if (!(relative_error(got[i], reference.expected[i], reference.scale[i]) <= reference.tolerance)) first = i;
  if (first < 0) return "";
  // Still the poison (NaN) from `first` to the end: a copy back that stopped short.
  bool unwritten_tail = true;
  for (std::int64_t i = first; i < n && unwritten_tail; ++i) unwritten_tail = std::isnan(got[i]);
  if (unwritten_tail && first == 0)
    return "none of c was written (it is still the poison, NaN): lab_trip must upload a and b, add them on the "
           "GPU, and copy c back to the host";
  if (unwritten_tail)
    return "elements from " + std::to_string(first) + " on were never written (still the poison; c has " +
           std::to_string(n) +
           "): did every chunk's copy cover its elements, including the last, shorter chunk? (a copy of n - 1 "
           "floats, or a loop over whole chunks only, leaves the end of c as it was)";
  return explain_result(workload, problem.shape, got, problem.output, reference);
}

}  // namespace lb::lab
