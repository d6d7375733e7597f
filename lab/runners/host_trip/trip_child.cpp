#include "lab/runners/host_trip/trip_child.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <tuple>
#include <optional>
#include <span>

#include "common/cuda_check.h"
#include "common/elapsed.h"
#include "common/gpu.h"
#include "common/median.h"
#include "harness/sampling.h"
#include "lab/child/grade_keys.h"  // keyed_hash
#include "lab/child/key_holder.h"
#include "lab/child/student_program.h"  // StudentCompileError
#include "lab/runners/host_trip/trip_build.h"
#include "lab/runners/host_trip/trip_feedback.h"
#include "lab/runners/host_trip/host_link.h"
#include "lab/runners/host_trip/trip_process.h"
#include "lab/runners/host_trip/trip_clock.h"
#include "lab/runners/host_trip/trip_event.h"
#include "workloads/problem.h"

namespace lb::lab {
namespace {

constexpr int kWarmupTrips = 2;
constexpr std::size_t kMaxTimedTrips = 40;
constexpr double kTargetNoise = 0.01;  // the trips' relative standard deviation
constexpr double kMaxSamplingS = 5;    // wall clock, the inputs' writing and the checks included

// The events, on a private copy of standard output; standard output itself goes to standard
// error from here on (trip_child.h says why).
class EventStream {
 public:
  explicit EventStream(std::FILE* out) {
    std::fflush(out);
    const int fd = fcntl(fileno(out), F_DUPFD_CLOEXEC, 3);
    file_ = fd >= 0 ? fdopen(fd, "w") : nullptr;
    if (!file_) throw std::runtime_error(std::string("cannot copy standard output: ") + std::strerror(errno));
    dup2(STDERR_FILENO, fileno(out));
  }
  ~EventStream() { std::fclose(file_); }
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;
  void emit(const ChildEvent& event) const { write_child_event(file_, event); }

 private:
  std::FILE* file_ = nullptr;
};

// A trip opened in the trip process (its buffers and lab_setup) for one size; abandoned (lab_teardown,
// its error ignored, the buffers freed) when an error leaves the scope before finished().
class OpenedTrip {
 public:
  OpenedTrip(TripProcess& process, TripOf who, std::int64_t n, const std::string& size)
      : process_(process), who_(who), memory_(process.open(who, n, size)) {}
  ~OpenedTrip() {
    if (done_) return;
    try {
      process_.abandon(who_);
    } catch (const std::exception&) {  // the trip process failed: its own error is reported
    }
  }
  OpenedTrip(const OpenedTrip&) = delete;
  OpenedTrip& operator=(const OpenedTrip&) = delete;
  const HostBuffers& memory() const { return memory_; }
  void finished() {
    done_ = true;
    process_.close(who_);
  }

 private:
  TripProcess& process_;
  TripOf who_;
  HostBuffers memory_;
  bool done_ = false;
};

// Empty when the guard after c is intact; else what wrote past the end of c.
std::string guard_damage(std::span<const float> guard, std::int64_t n) {
  for (std::size_t i = 0; i < guard.size(); ++i)
    if (std::memcmp(&guard[i], &kGuardBits, sizeof kGuardBits) != 0)
      return "wrote past the end of c on the host (float " + std::to_string(n + static_cast<std::int64_t>(i)) +
             "; c has " + std::to_string(n) + "): your download copies more than n floats";
  return "";
}

// c after a trip: empty when right and nothing else was touched; else why not.
std::string judge(const Workload& workload, const HostProblem& problem, const TripProcess& process) {
  const std::int64_t n = problem.shape.n;
  if (std::string damage = guard_damage(process.c_guard(n), n); !damage.empty()) return damage;
  const std::span<const float> c = process.c(n);
  if (workload.verify(problem, c).passed) return "";
  const std::string why = explain_trip_result(workload, problem, c);
  return why.empty() ? "c is wrong" : why;
}

// One check size: empty when it passed, else the feedback line. Its inputs reach the trip process
// only now, for this trip.
std::string check_one(TripProcess& process, const Workload& workload, const HostProblem& problem,
                      const std::string& size) {
  const std::int64_t n = problem.shape.n;
  OpenedTrip opened(process, TripOf::kStudent, n, size);
  parallel_copy(problem.inputs[0], process.a(n));
  parallel_copy(problem.inputs[1], process.b(n));
  parallel_copy(problem.output, process.c(n));
  process.run(TripOf::kStudent, n, true, [] {}, [] {});
  for (const auto& [name, input, given] : {std::tuple{"a", process.a(n), &problem.inputs[0]},
                                           std::tuple{"b", process.b(n), &problem.inputs[1]}})
    if (std::memcmp(input.data(), given->data(), static_cast<std::size_t>(n) * sizeof(float)) != 0)
      return std::string("lab_trip changed ") + name + ": it may only read a and b";
  if (std::string wrong = judge(workload, problem, process); !wrong.empty()) return wrong;
  opened.finished();
  return "";
}

bool check_sizes(const LabSpec& spec, TripProcess& process, const GradeKeys& keys, const EventStream& events) {
  bool all_passed = true;
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    const HostProblem problem = draw_problem(*spec.workload, spec.check_sizes[i], key_at(keys.check, i, "check size"));
    std::string feedback;
    try {
      feedback = check_one(process, *spec.workload, problem, spec.check_size_texts[i]);
    } catch (const TripError& e) {
      feedback = e.what();
    }
    events.emit(SizeChecked{spec.check_size_texts[i], feedback.empty(), feedback});
    all_passed = all_passed && feedback.empty();
    // A sticky error (a kernel's illegal address) leaves the context unusable: stop here.
    if (const std::string fault = feedback.empty() ? "" : process.fault(); !fault.empty()) {
      events.emit(CudaFailure{fault + " (after the trip at n = " + spec.check_size_texts[i] +
                              "; the GPU context is unusable after it)"});
      return false;
    }
  }
  return all_passed;
}

struct TimedTrips {
  Figures figures;  // the child's own clock: the parent replaces them with its own (trip_clock.h)
  std::size_t verified = 0;
  double prepare_ms = 0;  // median host time of one trip's fresh inputs (drawn, copied, c poisoned)
  // Mean host time of one timed trip's verification (c's guard zone and c against the trip's own
  // problem, outside the timed trip), as FreshInputs::verify_ms is a kernel sample's: the event's
  // sample_verify_ms. c is already on the host (the trip downloads it), so there is no download.
  double verify_ms = 0;
};

// One trip timed at one size: its buffers and lab_setup on construction, then its verified
// warm-ups, then one timed trip per time_one(), marked for the parent. TripError when a call fails
// or a result is wrong.
class TripTiming {
 public:
  TripTiming(TripProcess& process, TripOf who, const Workload& workload, TripInputs& inputs, const std::string& label,
             const EventStream& events)
      : process_(process), who_(who), workload_(workload), inputs_(inputs), label_(label), events_(events),
        opened_(process, who, inputs.problem().shape.n, label) {
    if (who == TripOf::kStudent) events.emit(runner_event(opened_.memory()));
    for (int w = 0; w < kWarmupTrips; ++w) {  // verified: a wrong trip is explained as the check would
      prepare(w);
      process_.run(who_, n(), false, [] {}, [] {});
      if (const std::string wrong = judge(workload_, inputs_.problem(), process_); !wrong.empty())
        throw TripError("the trip before the timed ones was wrong: " + wrong);
    }
  }

  void time_one() {
    const std::size_t t = series_.count();
    prepare_ms_.push_back(prepare(kWarmupTrips + static_cast<std::int64_t>(t)));
    std::chrono::steady_clock::time_point t0;
    double ms = 0;
    process_.run(
        who_, n(), false,
        [&] {
          events_.emit(runner_event(TripMark{label_, who_, t, false}));
          t0 = std::chrono::steady_clock::now();
        },
        [&] {
          ms = ms_since(t0);
          events_.emit(runner_event(TripMark{label_, who_, t, true}));
        });
    const auto verify_start = std::chrono::steady_clock::now();
    if (const std::string wrong = judge(workload_, inputs_.problem(), process_); !wrong.empty())
      throw TripError("timed trip " + std::to_string(t) + " was wrong: " + wrong);
    verify_ms_total_ += ms_since(verify_start);
    series_.add(ms);
  }

  std::size_t count() const { return series_.count(); }
  bool settled() const { return series_.count() >= kMinTimedTrips && series_.rel_stddev() <= kTargetNoise; }

  // lab_teardown, and the figures.
  TimedTrips finish(const std::string& stop) {
    opened_.finished();
    TimedTrips timed;
    timed.verified = series_.count() + static_cast<std::size_t>(kWarmupTrips);
    timed.prepare_ms = median(prepare_ms_);
    timed.verify_ms = series_.count() == 0 ? 0.0 : verify_ms_total_ / static_cast<double>(series_.count());
    timed.figures = figures_of_trips(series_.samples(), trip_bytes(workload_, inputs_.problem().shape).upload, stop);
    return timed;
  }

 private:
  std::int64_t n() const { return inputs_.problem().shape.n; }
  // Trip `trip`'s inputs, drawn here and written into the shared memory only now, after the last
  // trip's result is in: the host milliseconds that took.
  double prepare(std::int64_t trip) {
    return inputs_.prepare(trip, process_.a(n()), process_.b(n()), process_.c(n()));
  }

  TripProcess& process_;
  TripOf who_;
  const Workload& workload_;
  TripInputs& inputs_;
  std::string label_;
  const EventStream& events_;
  OpenedTrip opened_;
  SampleSeries series_;
  std::vector<double> prepare_ms_;
  double verify_ms_total_ = 0;  // the timed trips' verifications, host milliseconds
};

std::string gpu_name() {
  int device = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  LB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

// At each benchmark size, the student's trip and ours, set up side by side and timed in turn (the
// student's, ours, the student's, ...), so that a slow spell of the host, the link or the parent's
// clock slows both and leaves their ratio, the grade, as it was: timed one series after the other,
// one slow series of ours once lifted a planted trip a tier (wrong/no_overlap.cu on the H100, 0.81
// of ours, where it is usually near 0.73). They stop together: both under the noise target, the two
// series' time cap, or the sample cap. Where ours fails (ours_error), the student's goes on alone.
// The environment line is run_host_trip_child's (the link measured before the student's library is loaded).
void time_trips(const LabSpec& spec, TripProcess& process, const GradeKeys& keys, const EventStream& events) {
  for (std::size_t size = 0; size < spec.benchmark_sizes.size(); ++size) {
    const Shape& shape = spec.benchmark_sizes[size];
    const std::string label = spec.workload->size_label(shape);
    TripInputs inputs(*spec.workload, shape, key_at(keys.judge, size, "benchmark size"));
    BenchmarkTimed timed{.size = label};
    std::optional<TripTiming> theirs, our;
    const auto student_failed = [&](const TripError& e) {
      theirs.reset();  // lab_teardown, its error ignored, and the buffers freed
      our.reset();
      events.emit(BenchmarkFailed{label, e.what()});
      if (const std::string fault = process.fault(); !fault.empty())
        throw CudaError(fault + " (the GPU context is unusable after the student's trip)", 0);
    };
    const auto ours_failed = [&](const TripError& e) {
      our.reset();
      timed.ours_error = e.what();
    };
    try {
      theirs.emplace(process, TripOf::kStudent, *spec.workload, inputs, label, events);
    } catch (const TripError& e) {
      student_failed(e);
      continue;
    }
    try {
      our.emplace(process, TripOf::kOurs, *spec.workload, inputs, label, events);
    } catch (const TripError& e) {
      ours_failed(e);
    }
    std::string stop = "sample cap";
    const auto start = std::chrono::steady_clock::now();
    bool failed = false;
    while (theirs->count() < kMaxTimedTrips) {
      try {
        theirs->time_one();
      } catch (const TripError& e) {
        student_failed(e);
        failed = true;
        break;
      }
      if (our) {
        try {
          our->time_one();
        } catch (const TripError& e) {
          ours_failed(e);
        }
      }
      if (theirs->settled() && (!our || our->settled())) {
        stop = "noise target";
        break;
      }
      // Both series' share of the cap: the same wall time each as when they ran one after the other.
      if (theirs->count() >= kMinTimedTrips && ms_since(start) >= (our ? 2 : 1) * kMaxSamplingS * 1e3) {
        stop = "time cap";
        break;
      }
    }
    if (failed) continue;
    try {
      const TimedTrips t = theirs->finish(stop);
      timed.student = t.figures;
      timed.samples_verified = t.verified;
      timed.input_reset_ms = t.prepare_ms;
      timed.sample_verify_ms = t.verify_ms;
    } catch (const TripError& e) {
      student_failed(e);
      continue;
    }
    if (our) {
      try {
        timed.ours = our->finish(stop).figures;
      } catch (const TripError& e) {
        ours_failed(e);
      }
    }
    events.emit(timed);
  }
}

// The most elements a trip of this lab has: the trip process's shared memory holds a, b and c of it.
std::int64_t largest_n(const LabSpec& spec) {
  std::int64_t n = 1;
  for (const Shape& shape : spec.check_sizes) n = std::max(n, shape.n);
  for (const Shape& shape : spec.benchmark_sizes) n = std::max(n, shape.n);
  return n;
}

int current_sm() {
  int device = 0, major = 0, minor = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

}  // namespace

TripInputs::TripInputs(const Workload& workload, const Shape& shape, std::uint64_t seed) {
  const std::vector<std::int64_t> sizes = workload.input_elements(shape);
  if (sizes.size() != 2 || sizes[0] != shape.n || sizes[1] != shape.n)
    throw std::logic_error("a trip takes two inputs of n elements, a and b");
  problem_.shape = shape;
  case_seed_ = case_seed(seed, workload, shape);
  // Allocated once, first touched by the first draw (in parallel, HostBuffer leaves them unset).
  for (const std::int64_t count : sizes) problem_.inputs.emplace_back(static_cast<std::size_t>(count));
  problem_.output = poisoned(shape.n);
}

std::uint64_t TripInputs::trip_seed(std::uint64_t case_seed, std::int64_t trip) {
  // Keyed and one-way (grade_keys.h): a trip's seed, recovered from the floats it was given, says
  // nothing about the case seed nor any other trip's.
  return keyed_hash(case_seed, "trip " + std::to_string(trip));
}

double TripInputs::prepare(std::int64_t trip, std::span<float> a, std::span<float> b, std::span<float> c) {
  const std::size_t n = problem_.output.size();
  if (a.size() != n || b.size() != n || c.size() != n) throw std::logic_error("a trip's buffers hold n floats each");
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t seed = trip_seed(case_seed_, trip);
  problem_.seed = seed;
  // vector_add's make_problem(shape, seed), drawn into the buffers this object keeps (a fresh
  // HostProblem a trip would fault in 768 MiB of new pages at 2^26 each time): input j is stream j.
  // tests/test_lab_transfer.cpp holds the two equal.
  for (std::size_t j = 0; j < problem_.inputs.size(); ++j) fill_random(problem_.inputs[j], seed, j);
  parallel_copy(problem_.inputs[0], a);
  parallel_copy(problem_.inputs[1], b);
  parallel_copy(problem_.output, c);
  return ms_since(t0);
}

int run_host_trip_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                       std::FILE* out) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) {
    write_child_event(out, NoGpu{why});
    return kExitCannotRun;
  }
  const EventStream events(out);
  try {
    // The build's line, and when timing, the host link (the ceiling, the limiter line and the
    // plausibility bound read it) measured and reported before the student's library is loaded
    // anywhere; the library is loaded only in the trip process, which never holds a key.
    std::optional<TripProcess> process;
    try {
      const StudentLibrary built = build_student_library(
          file, {.sm = current_sm(), .line_info = request.line_info, .debug = request.exact_buffers});
      events.emit(StudentBuilt{built.command, built.compile_ms});
      if (request.mode == ChildMode::kTime)
        events.emit(TimingEnvironment{.gpu = gpu_name(), .ceilings = link_json(measure_link()), .peaks = nullptr,
                                      .cache_mode = "hot"});
      const std::filesystem::path layerbench = std::filesystem::read_symlink("/proc/self/exe");
      // Not dumpable (again: run_child_with_channel made it so before anything ran): no process of
      // the same user (the trip process among them) may read this one's memory through /proc or
      // ptrace.
      make_key_holder_undumpable();
      process.emplace(layerbench, built.library, file, largest_n(spec));
      process->wait_loaded();  // the library may go now: the trip process has it mapped
    } catch (const StudentCompileError& e) {
      events.emit(CompileFailed{e.what()});
      return kExitFailed;
    }
    switch (request.mode) {
      case ChildMode::kProfile:
        events.emit(Failure{"this lab is graded end to end: profile the whole trip with Nsight Systems (nsys)"});
        return kExitFailed;
      case ChildMode::kTime:
        time_trips(spec, *process, request.keys, events);
        return kExitPassed;
      case ChildMode::kCheck:
        return check_sizes(spec, *process, request.keys, events) ? kExitPassed : kExitFailed;
      case ChildMode::kEnvironment:  // the trip's timing child reports its link itself (environment_apart)
        events.emit(Failure{"the host trip measures its link in its timing child"});
        return kExitFailed;
    }
    return kExitFailed;
  } catch (const CudaError& e) {
    events.emit(CudaFailure{e.what()});
    return kExitFailed;
  } catch (const std::exception& e) {
    events.emit(Failure{e.what()});
    return kExitFailed;
  }
}

}  // namespace lb::lab
