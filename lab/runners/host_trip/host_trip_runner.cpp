#include "lab/runners/host_trip/host_trip_runner.h"

#include "lab/runners/host_trip/trip_build.h"
#include "lab/runners/host_trip/trip_child.h"
#include "lab/runners/host_trip/trip_clock.h"
#include "lab/runners/host_trip/trip_grading.h"
#include "lab/runners/host_trip/trip_process.h"

#include <climits>
#include <cstdio>
#include <exception>
#include <string>

namespace lb::lab {

// Its trip is called as (a, b, c, n): two inputs, the output, the size (trip.h).
std::string HostTripRunner::arguments_error(const std::vector<BoundArgument>& arguments) const {
  const auto kind = [&](std::size_t i) { return arguments[i].arg.kind; };
  if (arguments.size() == 4 && kind(0) == ArgKind::kInput && kind(1) == ArgKind::kInput &&
      kind(2) == ArgKind::kOutput && kind(3) == ArgKind::kSize)
    return {};
  return "the " + name() + " runner calls its trip with two inputs, the output and the size (a, b, c, n)";
}

// Built with nvcc in the child only: its rules on the text here, without a GPU.
void HostTripRunner::precheck(const LabSpec&, const std::filesystem::path& file) const { check_student_source(file); }

std::string HostTripRunner::compile_failed_rule(const std::string& file_name) const {
  return file_name + " breaks the lab's rules or does not build (its README.md says what the file may contain and call)";
}

ArrivalClock HostTripRunner::arrival_clock(ChildMode mode) const {
  return mode == ChildMode::kTime ? ArrivalClock::kSpin : ArrivalClock::kSleep;
}

std::shared_ptr<ChildNotes> HostTripRunner::child_notes(ChildMode) const { return std::make_shared<TripNotes>(); }

int HostTripRunner::run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                              std::FILE* out) const {
  return run_host_trip_child(spec, file, request, out);
}

// ncu profiles one kernel; this lab grades the whole trip, copies and all.
std::string HostTripRunner::why_not_profiled(const LabSpec& spec, const std::filesystem::path& file) const {
  return spec.name + " is graded end to end, not by one kernel: profile the whole trip with Nsight Systems, whose "
         "timeline shows its copies, kernels and streams (nsys profile --trace=cuda layerbench lab check " +
         spec.name + " " + file.string() + ")";
}

Ceiling HostTripRunner::ceiling(const LabSpec&, const std::optional<TimingEnvironment>& environment) const {
  return link_ceiling(environment);
}

RateLimit HostTripRunner::rate_limit(const LabSpec& spec, const std::string& label,
                                     const std::optional<TimingEnvironment>& environment) const {
  return link_limit(spec, label, environment);
}

std::string HostTripRunner::environment_refusal(const LabSpec& spec,
                                                const std::optional<TimingEnvironment>& environment) const {
  if (!environment) return "no environment line";
  const Ceiling link = ceiling(spec, environment);
  if (!(link.value > 0)) return "an environment without the host link's " + link.what;
  return unchecked_size_refusal(spec, environment);
}

std::vector<std::string> HostTripRunner::timing_feedback(const LabSpec& spec, const ChildReport& timed,
                                                         const Grade& grade) const {
  return limiter_feedback(spec, timed, grade);
}

int HostTripRunner::run_helper(const std::vector<std::string>& args) const {
  // Only the host trip's child starts it (TripProcess), with exactly these words: the student's
  // LIBRARY FILE, or --ours (our trip alone, no library), then the descriptors and the largest trip.
  const auto number = [](const std::string& word) -> long long {
    try {
      std::size_t used = 0;
      const long long value = std::stoll(word, &used);
      return used == word.size() ? value : -1;
    } catch (const std::exception&) {
      return -1;
    }
  };
  const bool ours = !args.empty() && args[0] == "--ours";
  const std::size_t first = ours ? 1 : 2;
  long long socket_fd = -1, memory_fd = -1, max_n = -1;
  if (args.size() == first + 6 && args[first] == "--socket-fd" && args[first + 2] == "--memory-fd" &&
      args[first + 4] == "--elements") {
    socket_fd = number(args[first + 1]);
    memory_fd = number(args[first + 3]);
    max_n = number(args[first + 5]);
  }
  if (socket_fd < 0 || memory_fd < 0 || max_n < 1 || socket_fd > INT_MAX || memory_fd > INT_MAX) {
    std::fprintf(stderr,
                 "layerbench lab run-helper %s: error: expected LIBRARY FILE (or --ours) --socket-fd N --memory-fd M "
                 "--elements E (lab 8's child starts this command)\n",
                 name().c_str());
    return 2;
  }
  return run_trip_process(static_cast<int>(socket_fd), static_cast<int>(memory_fd), max_n,
                          ours ? std::filesystem::path() : std::filesystem::path(args[0]),
                          ours ? std::filesystem::path() : std::filesystem::path(args[1]));
}

std::string HostTripRunner::what_ours_is(const LabSpec&) const {
  return "ours (lab/runners/host_trip/trip_ours.cu, written with the runtime API)";
}

}  // namespace lb::lab
