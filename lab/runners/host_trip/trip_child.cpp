#include "lab/runners/host_trip/trip_child.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <optional>
#include <tuple>
#include <vector>
#include <span>
#if defined(__SSE__)
#include <immintrin.h>
#endif

#include "common/cuda_check.h"
#include "common/elapsed.h"
#include "common/gpu.h"
#include "common/median.h"
#include "harness/sampling.h"
#include "lab/child/grade_keys.h"  // keyed_hash
#include "lab/child/key_holder.h"
#include "lab/child/student_program.h"  // StudentCompileError
#include "lab/child/student_sandbox.h"
#include "lab/runners/host_trip/trip_build.h"
#include "lab/runners/host_trip/trip_feedback.h"
#include "lab/runners/host_trip/host_link.h"
#include "lab/runners/host_trip/trip_process.h"
#include "lab/runners/host_trip/trip_clock.h"
#include "lab/runners/host_trip/trip_event.h"
#include "workloads/problem.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

constexpr int kWarmupTrips = 2;
constexpr double kTargetNoise = 0.01;  // a series' relative standard deviation

// How long a series of timed trips runs: until its noise is under kTargetNoise with at least `min`
// trips, or `cap_s` of wall clock (the inputs' drawing and the checks included) with at least
// `min`, or `max` trips. Ours is timed in two series, before and after the student's, each with half
// the student's time cap: together, the wall time that ours took when the two were interleaved;
// each with the student's least count, so that every series has its own median. Lab 8's
// time limit (lab_grade.cpp, timing_time_limit) gives each benchmark size 30 s; a size's three
// series take at most 10 s of sampling, and three trip processes' starts.
struct SeriesBounds {
  std::size_t min = 0, max = 0;
  double cap_s = 0;
};
constexpr SeriesBounds kStudentSeries{kMinTimedTrips, 40, 5};
constexpr SeriesBounds kOurSeries{kMinTimedTrips, 20, 2.5};

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
// its error ignored) when an error leaves the scope before finished().
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

void set_guard(std::span<float> guard) {
  for (float& g : guard) std::memcpy(&g, &kGuardBits, sizeof kGuardBits);
}

// Empty when the guard after c is intact; else what wrote past the end of c.
std::string guard_damage(std::span<const float> guard, std::int64_t n) {
  for (std::size_t i = 0; i < guard.size(); ++i)
    if (std::memcmp(&guard[i], &kGuardBits, sizeof kGuardBits) != 0)
      return "wrote past the end of c on the host (float " + std::to_string(n + static_cast<std::int64_t>(i)) +
             "; c has " + std::to_string(n) + "): your download copies more than n floats";
  return "";
}

// c after a trip, in the shared memory: empty when right and nothing else was touched; else why not.
std::string judge(const Workload& workload, const HostProblem& problem, const TripProcess& process) {
  const std::int64_t n = problem.shape.n;
  if (std::string damage = guard_damage(process.c_guard(n), n); !damage.empty()) return damage;
  const std::span<const float> c = process.c(n);
  if (workload.verify(problem, c).passed) return "";
  const std::string why = explain_trip_result(workload, problem, c);
  return why.empty() ? "c is wrong" : why;
}

// One check size: empty when it passed, else the feedback line. Its inputs reach the shared memory
// only after "ready", for this trip.
std::string check_one(TripProcess& process, const Workload& workload, const HostProblem& problem,
                      const std::string& size) {
  const std::int64_t n = problem.shape.n;
  OpenedTrip opened(process, TripOf::kStudent, n, size);
  EndSample sample;
  sample.draw(problem.seed, problem.inputs[0], problem.inputs[1]);
  parallel_copy(problem.output, process.c(n));
  set_guard(process.c_guard(n));
  process.run(TripOf::kStudent, n, sample, [] {},
              [&] {
                parallel_copy(problem.inputs[0], process.a(n));
                parallel_copy(problem.inputs[1], process.b(n));
              },
              [] {});
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
    // A "ran" before c was written: the trip process's replies no longer match our commands.
    // A trip that ended early or stopped itself leaves no trip process to go on with: the check
    // ends here with its last word (a line still due would be a protocol error).
    if (process.out_of_step()) {
      events.emit(Failure{"the check stopped after the trip at n = " + spec.check_size_texts[i] +
                          ": your trip process cannot go on after it"});
      return false;
    }
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
  std::vector<double> ms;  // the child's own clock: the parent replaces the figures with its own (trip_clock.h)
  std::string stop;
  std::size_t verified = 0;
  double draw_ms = 0;      // median host time of one trip's fresh inputs (drawn, c poisoned), before its clock
  double handover_ms = 0;  // median host time of one trip's hand-over of a and b, inside its clock
  // Mean host time of one timed trip's verification (c's guard zone and c against the trip's own
  // problem, after its clock), as FreshInputs::verify_ms is a kernel sample's: the event's
  // sample_verify_ms. c is already on the host (the trip downloads it), so there is no download.
  double verify_ms = 0;
};

// One series of one trip at one size, in a trip process: its buffers and lab_setup on construction,
// then its verified warm-ups, then one timed trip per time_one(), marked for the parent as samples
// first_sample, first_sample + 1, ... TripError when a call fails or a result is wrong.
class TripTiming {
 public:
  TripTiming(TripProcess& process, TripOf who, const Workload& workload, TripInputs& inputs, const std::string& label,
             const EventStream& events, std::size_t first_sample)
      : process_(process), who_(who), workload_(workload), inputs_(inputs), label_(label), events_(events),
        first_sample_(first_sample), opened_(process, who, inputs.problem().shape.n, label) {
    if (who == TripOf::kStudent) events.emit(runner_event(opened_.memory()));
    for (int w = 0; w < kWarmupTrips; ++w) {  // verified: a wrong trip is explained as the check would
      run(w, [] {}, [] {});
      if (const std::string wrong = judge(workload_, inputs_.problem(), process_); !wrong.empty())
        throw TripError("the trip before the timed ones was wrong: " + wrong);
    }
    draw_ms_.clear();  // the figures are the timed trips' (the warm-ups' include first touches)
    handover_ms_.clear();
  }

  void time_one() {
    const std::size_t sample = first_sample_ + series_.count();
    std::chrono::steady_clock::time_point t0;
    double ms = 0;
    run(
        kWarmupTrips + static_cast<std::int64_t>(series_.count()),
        [&] {
          events_.emit(runner_event(TripMark{label_, who_, sample, false}));
          t0 = std::chrono::steady_clock::now();
        },
        [&] {
          ms = ms_since(t0);
          events_.emit(runner_event(TripMark{label_, who_, sample, true}));
        });
    const auto verify_start = std::chrono::steady_clock::now();
    if (const std::string wrong = judge(workload_, inputs_.problem(), process_); !wrong.empty())
      throw TripError("timed trip " + std::to_string(sample) + " was wrong: " + wrong);
    verify_ms_total_ += ms_since(verify_start);
    series_.add(ms);
  }

  std::size_t count() const { return series_.count(); }
  double noise() const { return series_.rel_stddev(); }

  // lab_teardown, and the series.
  TimedTrips finish(const std::string& stop) {
    opened_.finished();
    TimedTrips timed;
    timed.ms = series_.samples();
    timed.stop = stop;
    timed.verified = series_.count() + static_cast<std::size_t>(kWarmupTrips);
    timed.draw_ms = median(draw_ms_);
    timed.handover_ms = median(handover_ms_);
    timed.verify_ms = series_.count() == 0 ? 0.0 : verify_ms_total_ / static_cast<double>(series_.count());
    return timed;
  }

 private:
  std::int64_t n() const { return inputs_.problem().shape.n; }
  // Trip `trip`: its inputs drawn and c reset before "run"; a and b handed over after `started`.
  template <class Started, class Ended>
  void run(std::int64_t trip, Started started, Ended ended) {
    draw_ms_.push_back(inputs_.draw(trip, process_.c(n())));
    set_guard(process_.c_guard(n()));
    process_.run(who_, n(), inputs_.end_sample(), started,
                 [&] { handover_ms_.push_back(inputs_.hand_over(process_.a(n()), process_.b(n()))); }, ended);
  }

  TripProcess& process_;
  TripOf who_;
  const Workload& workload_;
  TripInputs& inputs_;
  std::string label_;
  const EventStream& events_;
  std::size_t first_sample_;
  OpenedTrip opened_;
  SampleSeries series_;
  std::vector<double> draw_ms_, handover_ms_;
  double verify_ms_total_ = 0;  // the timed trips' verifications, host milliseconds
};

// Times trips as `bounds` says: why it stopped.
std::string sample_series(TripTiming& timing, const SeriesBounds& bounds) {
  const auto start = std::chrono::steady_clock::now();
  while (timing.count() < bounds.max) {
    timing.time_one();
    if (timing.count() < bounds.min) continue;
    if (timing.noise() <= kTargetNoise) return "noise target";
    if (ms_since(start) >= bounds.cap_s * 1e3) return "time cap";
  }
  return "sample cap";
}

std::string gpu_name() {
  int device = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  LB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

// What the time mode starts trip processes from: layerbench, and the student's built library.
struct TripPrograms {
  fs::path layerbench, library, file;
};

// Ends the student's trip process and then everything the student's code may have left
// (end_student_processes): no student process, and so no student GPU work, is left after it.
void end_student(TripProcess& process) {
  process.end();
  end_student_processes(student_isolation());
}

// The student's series at one size, in a trip process of its own that has ended (and everything the
// student's code left with it) when this returns; nullopt when the trip failed (BenchmarkFailed
// emitted). CudaError when the GPU context was left unusable.
std::optional<TimedTrips> time_student(const LabSpec& spec, const TripPrograms& programs, TripInputs& inputs,
                                       const std::string& label, const EventStream& events) {
  TripProcess process(programs.layerbench, programs.library, programs.file, inputs.problem().shape.n);
  std::optional<TimedTrips> timed;
  std::string error;
  try {
    process.wait_loaded();
    TripTiming theirs(process, TripOf::kStudent, *spec.workload, inputs, label, events, 0);
    const std::string stop = sample_series(theirs, kStudentSeries);
    timed = theirs.finish(stop);
  } catch (const TripError& e) {
    error = e.what();
  } catch (const StudentCompileError& e) {  // it loaded before: this is not the build's
    error = e.what();
  }
  const std::string fault = process.fault();
  end_student(process);
  if (timed) return timed;
  events.emit(BenchmarkFailed{label, error});
  if (!fault.empty()) throw CudaError(fault + " (the GPU context is unusable after the student's trip)", 0);
  return std::nullopt;
}

// One series of ours at one size, in a fresh trip process of ours alone; `first_sample`: its first
// mark's sample number (ours' samples are numbered on across its series). TripError when it fails.
TimedTrips time_ours(const LabSpec& spec, const TripPrograms& programs, TripInputs& inputs, const std::string& label,
                     const EventStream& events, std::size_t first_sample) {
  TripProcess process(programs.layerbench, inputs.problem().shape.n);
  process.wait_loaded();
  TripTiming ours(process, TripOf::kOurs, *spec.workload, inputs, label, events, first_sample);
  const std::string stop = sample_series(ours, kOurSeries);
  TimedTrips timed = ours.finish(stop);
  process.end();  // before the next process starts: how it exited says nothing of its trips, all verified
  return timed;
}

// At each benchmark size: ours, in a trip process of ours alone, before the student's trip process
// is started; the student's; then, once nothing of the student's is left, ours again (trip_child.h).
// Ours' figures are of both its series (the parent's median of all of ours' marks at the size).
// Where ours fails (ours_error), the student's is graded without it (no performance points).
// The environment line is run_host_trip_child's (the link measured before the student's library is loaded).
void time_trips(const LabSpec& spec, const TripPrograms& programs, const GradeKeys& keys, const EventStream& events) {
  for (std::size_t size = 0; size < spec.benchmark_sizes.size(); ++size) {
    const Shape& shape = spec.benchmark_sizes[size];
    const std::string label = spec.workload->size_label(shape);
    TripInputs inputs(*spec.workload, shape, key_at(keys.judge, size, "benchmark size"));
    BenchmarkTimed timed{.size = label};
    std::vector<TimedTrips> ours;
    const auto time_our_series = [&] {
      if (!timed.ours_error.empty()) return;
      try {
        ours.push_back(time_ours(spec, programs, inputs, label, events, ours.empty() ? 0 : ours[0].ms.size()));
      } catch (const TripError& e) {
        timed.ours_error = e.what();
      }
    };
    time_our_series();
    const std::optional<TimedTrips> theirs = time_student(spec, programs, inputs, label, events);
    if (!theirs) continue;
    time_our_series();
    const double upload = trip_bytes(*spec.workload, shape).upload;
    timed.student = figures_of_trips(theirs->ms, upload, theirs->stop);
    timed.samples_verified = theirs->verified;
    timed.input_reset_ms = theirs->draw_ms;
    timed.handover_ms = theirs->handover_ms;
    timed.sample_verify_ms = theirs->verify_ms;
    if (timed.ours_error.empty()) {
      std::vector<double> ms = ours[0].ms;
      ms.insert(ms.end(), ours[1].ms.begin(), ours[1].ms.end());
      const std::string stop =
          ours[0].stop == ours[1].stop ? ours[0].stop : ours[0].stop + " before, " + ours[1].stop + " after";
      timed.ours = figures_of_trips(ms, upload, stop);
    }
    events.emit(timed);
  }
}

int current_sm() {
  int device = 0, major = 0, minor = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

// The most elements a check trip has: the check's trip process's shared memory holds a, b and c of it.
std::int64_t largest_check_n(const LabSpec& spec) {
  std::int64_t n = 1;
  for (const Shape& shape : spec.check_sizes) n = std::max(n, shape.n);
  return n;
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

double TripInputs::draw(std::int64_t trip, std::span<float> c) {
  const std::size_t n = problem_.output.size();
  if (c.size() != n) throw std::logic_error("a trip's c holds n floats");
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t seed = trip_seed(case_seed_, trip);
  problem_.seed = seed;
  // vector_add's make_problem(shape, seed), drawn into the buffers this object keeps (a fresh
  // HostProblem a trip would fault in 768 MiB of new pages at 2^26 each time): input j is stream j.
  // tests/test_lab_transfer.cpp holds the two equal.
  for (std::size_t j = 0; j < problem_.inputs.size(); ++j) fill_random(problem_.inputs[j], seed, j);
  sample_.draw(seed, problem_.inputs[0], problem_.inputs[1]);
  // The decoys (hand_over), into the runner's copy of a and b now, outside the clock; the inputs
  // they replace kept here.
  const std::vector<std::int64_t>& at = sample_.positions();
  const std::uint64_t decoy_seed = keyed_hash(seed, "decoys");
  held_a_ = random_vector(static_cast<std::int64_t>(at.size()), decoy_seed, 0);
  held_b_ = random_vector(static_cast<std::int64_t>(at.size()), decoy_seed, 1);
  for (std::size_t k = 0; k < at.size(); ++k) {
    std::swap(problem_.inputs[0][static_cast<std::size_t>(at[k])], held_a_[k]);
    std::swap(problem_.inputs[1][static_cast<std::size_t>(at[k])], held_b_[k]);
  }
  parallel_copy(problem_.output, c);
  return ms_since(t0);
}

namespace {

// a and b into the shared memory, in one parallel region, with streaming stores where the machine
// has them: the hand-over is inside both trips' clocks, so its cost narrows every ratio the tiers
// read. A plain copy first reads each destination line it writes (write-allocate); a streaming
// store does not, and leaves the caches to the trip. Measured on the lent H100 (16 cores, 2^26):
// 24.2 ms for a and b with two plain parallel_copy calls.
void hand_over_copy(std::span<const float> a_from, std::span<float> a_to, std::span<const float> b_from,
                    std::span<float> b_to) {
  constexpr std::int64_t kBlock = 1 << 14;  // floats a task: 64 KiB, a multiple of 16 B
  const auto blocks = [](std::size_t n) { return (static_cast<std::int64_t>(n) + kBlock - 1) / kBlock; };
  const std::int64_t a_blocks = blocks(a_from.size()), all = a_blocks + blocks(b_from.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < all; ++k) {
    const bool is_a = k < a_blocks;
    const float* from = is_a ? a_from.data() : b_from.data();
    float* to = is_a ? a_to.data() : b_to.data();
    const std::int64_t n = static_cast<std::int64_t>(is_a ? a_from.size() : b_from.size());
    const std::int64_t begin = (is_a ? k : k - a_blocks) * kBlock, end = std::min(n, begin + kBlock);
    std::int64_t i = begin;
#if defined(__SSE__)
    // The shared regions start on a page, and every block on a multiple of 16 bytes.
    if (reinterpret_cast<std::uintptr_t>(to + i) % 16 == 0)
      for (; i + 4 <= end; i += 4) _mm_stream_ps(to + i, _mm_loadu_ps(from + i));
    _mm_sfence();  // this thread's streaming stores ordered before the region's end, and so before "go"
#endif
    for (; i < end; ++i) to[i] = from[i];
  }
}

}  // namespace

double TripInputs::hand_over(std::span<float> a, std::span<float> b) {
  const std::size_t n = problem_.output.size();
  if (a.size() != n || b.size() != n) throw std::logic_error("a trip's a and b hold n floats each");
  const std::vector<std::int64_t>& at = sample_.positions();
  if (held_a_.size() != at.size()) throw std::logic_error("a hand-over without its draw");
  const auto t0 = std::chrono::steady_clock::now();
  hand_over_copy(problem_.inputs[0], a, problem_.inputs[1], b);  // the decoys among them
  for (std::size_t k = 0; k < at.size(); ++k) {
    const auto i = static_cast<std::size_t>(at[k]);
    a[i] = problem_.inputs[0][i] = held_a_[k];
    b[i] = problem_.inputs[1][i] = held_b_[k];
  }
  const double ms = ms_since(t0);
  held_a_.clear();
  held_b_.clear();
  return ms;
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
    std::optional<StudentLibrary> built;  // kept until the end: time mode starts a trip process per size
    std::optional<TripProcess> process;
    try {
      built = build_student_library(file, {.sm = current_sm(), .line_info = request.line_info,
                                           .debug = request.exact_buffers});
      events.emit(StudentBuilt{built->command, built->compile_ms});
      if (request.mode == ChildMode::kTime)
        events.emit(TimingEnvironment{.gpu = gpu_name(), .ceilings = link_json(measure_link()), .peaks = nullptr,
                                      .cache_mode = "hot"});
      // Not dumpable (again: run_child_with_channel made it so before anything ran): no process of
      // the same user (the trip process among them) may read this one's memory through /proc or
      // ptrace.
      make_key_holder_undumpable();
      // Loaded once here, so that a library that does not load is the build's error (its line), in
      // either mode; in check mode this trip process runs every check size.
      process.emplace(std::filesystem::read_symlink("/proc/self/exe"), built->library, file,
                      request.mode == ChildMode::kCheck ? largest_check_n(spec) : 1);
      process->wait_loaded();
    } catch (const StudentCompileError& e) {
      events.emit(CompileFailed{e.what()});
      return kExitFailed;
    }
    switch (request.mode) {
      case ChildMode::kProfile:
        events.emit(Failure{"this lab is graded end to end: profile the whole trip with Nsight Systems (nsys)"});
        return kExitFailed;
      case ChildMode::kTime:
        // Nothing of the student's alive while ours is timed first (trip_child.h).
        end_student(*process);
        time_trips(spec, {std::filesystem::read_symlink("/proc/self/exe"), built->library, file}, request.keys,
                   events);
        return kExitPassed;
      case ChildMode::kCheck: {
        const bool passed = check_sizes(spec, *process, request.keys, events);
        end_student(*process);
        return passed ? kExitPassed : kExitFailed;
      }
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
