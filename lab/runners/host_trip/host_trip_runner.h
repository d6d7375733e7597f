// The host trip: a lab whose student writes the host code (labs/08-transfer). Their CUDA C++ file
// is built with nvcc in the child (trip_build.h) and its five functions (trip.h) are called by the
// child (trip_child.h), which owns the data, the checking and the timing. What is graded is the
// whole trip from host memory to host memory, timed by the parent's clock from the child's marks
// (trip_clock.h) against ours (trip_ours.h), read against the host link's bandwidth
// (trip_grading.h), with a line naming what limits the trip (trip_feedback.h).
#pragma once
#include "lab/runners/runner.h"

namespace lb::lab {

class HostTripRunner final : public Runner {
 public:
  using Runner::Runner;
  bool takes_launch() const override { return false; }
  std::string arguments_error(const std::vector<BoundArgument>& arguments) const override;
  void precheck(const LabSpec& spec, const std::filesystem::path& file) const override;
  std::string compile_failed_rule(const std::string& file_name) const override;
  // A trip is timed by when its marks reach the parent: stamped as they come.
  ArrivalClock arrival_clock(ChildMode mode) const override;
  std::shared_ptr<ChildNotes> child_notes(ChildMode mode) const override;
  int run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                std::FILE* out) const override;
  bool times_one_kernel() const override { return false; }
  std::string why_not_profiled(const LabSpec& spec, const std::filesystem::path& file) const override;
  Ceiling ceiling(const LabSpec& spec, const std::optional<TimingEnvironment>& environment) const override;
  RateLimit rate_limit(const LabSpec& spec, const std::string& label,
                       const std::optional<TimingEnvironment>& environment) const override;
  // A trip is bounded by the host link (its ceilings), not by the GPU's peaks.
  std::string environment_refusal(const LabSpec& spec,
                                  const std::optional<TimingEnvironment>& environment) const override;
  std::vector<std::string> timing_feedback(const LabSpec& spec, const ChildReport& timed,
                                           const Grade& grade) const override;
  // The trip process (trip_process.h): LIBRARY FILE --socket-fd N --memory-fd M.
  int run_helper(const std::vector<std::string>& args) const override;
  std::string what_ours_is(const LabSpec& spec) const override;
  std::string what_is_timed() const override { return "your trip"; }
  std::string where_its_time_goes() const override {
    return "the line on what limits your trip says where its time goes";
  }
};

}  // namespace lb::lab
