#include "lab/runners/host_trip/trip_child.h"

#include <fcntl.h>
#include <unistd.h>

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
#include "lab/child/student_program.h"  // StudentCompileError
#include "lab/runners/host_trip/trip_build.h"
#include "lab/runners/host_trip/trip_feedback.h"
#include "lab/runners/host_trip/host_link.h"
#include "lab/runners/host_trip/trip_ours.h"
#include "lab/runners/host_trip/trip_clock.h"
#include "lab/runners/host_trip/trip_event.h"
#include "workloads/problem.h"

namespace lb::lab {
namespace {

constexpr std::int64_t kGuardFloats = 16384;       // 64 KiB after c, on the host
constexpr std::uint32_t kGuardBits = 0x7F8ABCDEu;  // a NaN no arithmetic produces
constexpr int kWarmupTrips = 2;
constexpr std::size_t kMaxTimedTrips = 40;
constexpr double kTargetNoise = 0.01;  // the trips' relative standard deviation
constexpr double kMaxSamplingS = 5;    // wall clock, the inputs' writing and the checks included

// A call of the trip's that failed, or a result that is wrong: what the student reads.
class TripError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string cuda_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

void require(cudaError_t status, const std::string& call) {
  if (status != cudaSuccess) throw TripError(call + " returned " + cuda_text(status));
}

// After lab_trip: its GPU work done, and no launch error left behind.
void require_trip_finished() {
  require(cudaDeviceSynchronize(), "the trip's GPU work (cudaDeviceSynchronize after lab_trip)");
  require(cudaGetLastError(), "a launch in lab_trip (cudaGetLastError after it)");
}

bool is_pinned(const void* p) {
  cudaPointerAttributes attributes{};
  const bool known = cudaPointerGetAttributes(&attributes, p) == cudaSuccess;
  cudaGetLastError();
  return known && attributes.type == cudaMemoryTypeHost;
}

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

// a, b and c as the trip's host_alloc gave them (c with the guard zone after its n floats), each
// given back by its host_free.
class TripBuffers {
 public:
  TripBuffers(Trip& trip, std::int64_t n) : trip_(trip), n_(n) {
    try {
      a_ = allocate(n, "a");
      b_ = allocate(n, "b");
      c_ = allocate(n + kGuardFloats, "c");
    } catch (...) {
      release();
      throw;
    }
  }
  ~TripBuffers() { release(); }
  TripBuffers(const TripBuffers&) = delete;
  TripBuffers& operator=(const TripBuffers&) = delete;

  float* a() const { return a_; }
  float* b() const { return b_; }
  float* c() const { return c_; }
  std::span<float> a_span() const { return {a_, static_cast<std::size_t>(n_)}; }
  std::span<float> b_span() const { return {b_, static_cast<std::size_t>(n_)}; }
  std::span<float> c_span() const { return {c_, static_cast<std::size_t>(n_)}; }
  HostBuffers memory(const std::string& size) const { return {size, is_pinned(a_), is_pinned(b_), is_pinned(c_)}; }

  void set_guard() const {
    for (std::int64_t i = 0; i < kGuardFloats; ++i) std::memcpy(c_ + n_ + i, &kGuardBits, sizeof kGuardBits);
  }
  // Empty when the guard is intact; else what wrote past the end of c.
  std::string guard_damage() const {
    for (std::int64_t i = 0; i < kGuardFloats; ++i)
      if (std::memcmp(c_ + n_ + i, &kGuardBits, sizeof kGuardBits) != 0)
        return "wrote past the end of c on the host (float " + std::to_string(n_ + i) + "; c has " +
               std::to_string(n_) + "): your download copies more than n floats";
    return "";
  }

 private:
  float* allocate(std::int64_t floats, const char* name) {
    const std::size_t bytes = static_cast<std::size_t>(floats) * sizeof(float);
    void* p = trip_.host_alloc(bytes);
    if (!p)
      throw TripError("lab_host_alloc(" + std::to_string(bytes) + ") returned a null pointer (for " + name + ")");
    cudaPointerAttributes attributes{};
    const bool known = cudaPointerGetAttributes(&attributes, p) == cudaSuccess;
    cudaGetLastError();
    if (known && (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged)) {
      trip_.host_free(p);
      throw TripError(std::string("lab_host_alloc returned GPU memory for ") + name +
                      ": the runner writes a and b and reads c on the host; allocate host memory (cudaMallocHost)");
    }
    return static_cast<float*>(p);
  }
  void release() {
    for (float** p : {&a_, &b_, &c_}) {
      if (*p) trip_.host_free(*p);
      *p = nullptr;
    }
  }

  Trip& trip_;
  std::int64_t n_;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
};

// lab_setup on construction; lab_teardown when finished() is called, or (its error ignored) when
// an error leaves the scope first, so that the next size starts with its device memory free.
class SetUpTrip {
 public:
  SetUpTrip(Trip& trip, std::int64_t n) : trip_(trip) {
    if (const cudaError_t status = trip.setup(n); status != cudaSuccess) {
      trip.teardown();  // what it did allocate
      require(status, "lab_setup(" + std::to_string(n) + ")");
    }
  }
  ~SetUpTrip() {
    if (!done_) trip_.teardown();
  }
  SetUpTrip(const SetUpTrip&) = delete;
  SetUpTrip& operator=(const SetUpTrip&) = delete;
  void finished() {
    done_ = true;
    require(trip_.teardown(), "lab_teardown()");
  }

 private:
  Trip& trip_;
  bool done_ = false;
};

// c after a trip: empty when right and nothing else was touched; else why not.
std::string judge(const Workload& workload, const HostProblem& problem, const TripBuffers& buffers) {
  if (std::string damage = buffers.guard_damage(); !damage.empty()) return damage;
  if (workload.verify(problem, buffers.c_span()).passed) return "";
  const std::string why = explain_trip_result(workload, problem, buffers.c_span());
  return why.empty() ? "c is wrong" : why;
}

// One check size: empty when it passed, else the feedback line.
std::string check_one(Trip& trip, const Workload& workload, const HostProblem& problem) {
  const std::int64_t n = problem.shape.n;
  TripBuffers buffers(trip, n);
  parallel_copy(problem.inputs[0], buffers.a_span());
  parallel_copy(problem.inputs[1], buffers.b_span());
  parallel_copy(problem.output, buffers.c_span());
  buffers.set_guard();
  SetUpTrip set_up(trip, n);
  require(trip.trip(buffers.a(), buffers.b(), buffers.c(), n), "lab_trip");
  require_trip_finished();
  for (const auto& [name, input, given] : {std::tuple{"a", buffers.a(), &problem.inputs[0]},
                                           std::tuple{"b", buffers.b(), &problem.inputs[1]}})
    if (std::memcmp(input, given->data(), static_cast<std::size_t>(n) * sizeof(float)) != 0)
      return std::string("lab_trip changed ") + name + ": it may only read a and b";
  if (std::string wrong = judge(workload, problem, buffers); !wrong.empty()) return wrong;
  set_up.finished();
  return "";
}

bool check_sizes(const LabSpec& spec, Trip& trip, const GradeKeys& keys, const EventStream& events) {
  bool all_passed = true;
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    const HostProblem problem = draw_problem(*spec.workload, spec.check_sizes[i], key_at(keys.check, i, "check size"));
    std::string feedback;
    try {
      feedback = check_one(trip, *spec.workload, problem);
    } catch (const TripError& e) {
      feedback = e.what();
    }
    events.emit(SizeChecked{spec.check_size_texts[i], feedback.empty(), feedback});
    all_passed = all_passed && feedback.empty();
    // A sticky error (a kernel's illegal address) leaves the context unusable: stop here.
    if (const std::string fault = feedback.empty() ? "" : cuda_context_fault(); !fault.empty()) {
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
};

// One trip timed at one size: its buffers and lab_setup on construction, then its verified
// warm-ups, then one timed trip per time_one(), marked for the parent. TripError when a call fails
// or a result is wrong.
class TripTiming {
 public:
  TripTiming(Trip& trip, TripOf who, const Workload& workload, TripInputs& inputs, const std::string& label,
             const EventStream& events)
      : trip_(trip), who_(who), workload_(workload), inputs_(inputs), label_(label), events_(events),
        buffers_(trip, inputs.problem().shape.n), set_up_(trip, inputs.problem().shape.n) {
    if (who == TripOf::kStudent) events.emit(runner_event(buffers_.memory(label)));
    for (int w = 0; w < kWarmupTrips; ++w) {  // verified: a wrong trip is explained as the check would
      inputs_.prepare(w, buffers_.a_span(), buffers_.b_span(), buffers_.c_span());
      buffers_.set_guard();
      require(trip_.trip(buffers_.a(), buffers_.b(), buffers_.c(), n()), "lab_trip");
      require_trip_finished();
      if (const std::string wrong = judge(workload_, inputs_.problem(), buffers_); !wrong.empty())
        throw TripError("the trip before the timed ones was wrong: " + wrong);
    }
  }

  void time_one() {
    const std::size_t t = series_.count();
    prepare_ms_.push_back(inputs_.prepare(kWarmupTrips + static_cast<std::int64_t>(t), buffers_.a_span(),
                                          buffers_.b_span(), buffers_.c_span()));
    buffers_.set_guard();
    require(cudaDeviceSynchronize(), "GPU work left over from the trip before (cudaDeviceSynchronize)");
    events_.emit(runner_event(TripMark{label_, who_, t, false}));
    const auto t0 = std::chrono::steady_clock::now();
    const cudaError_t status = trip_.trip(buffers_.a(), buffers_.b(), buffers_.c(), n());
    const cudaError_t finished = cudaDeviceSynchronize();
    const double ms = ms_since(t0);
    events_.emit(runner_event(TripMark{label_, who_, t, true}));
    require(status, "lab_trip");
    require(finished, "the trip's GPU work (cudaDeviceSynchronize after lab_trip)");
    require(cudaGetLastError(), "a launch in lab_trip (cudaGetLastError after it)");
    if (const std::string wrong = judge(workload_, inputs_.problem(), buffers_); !wrong.empty())
      throw TripError("timed trip " + std::to_string(t) + " was wrong: " + wrong);
    series_.add(ms);
  }

  std::size_t count() const { return series_.count(); }
  bool settled() const { return series_.count() >= kMinTimedTrips && series_.rel_stddev() <= kTargetNoise; }

  // lab_teardown, and the figures.
  TimedTrips finish(const std::string& stop) {
    set_up_.finished();
    TimedTrips timed;
    timed.verified = series_.count() + static_cast<std::size_t>(kWarmupTrips);
    timed.prepare_ms = median(prepare_ms_);
    timed.figures = figures_of_trips(series_.samples(), trip_bytes(workload_, inputs_.problem().shape).upload, stop);
    return timed;
  }

 private:
  std::int64_t n() const { return inputs_.problem().shape.n; }

  Trip& trip_;
  TripOf who_;
  const Workload& workload_;
  TripInputs& inputs_;
  std::string label_;
  const EventStream& events_;
  TripBuffers buffers_;
  SetUpTrip set_up_;  // after buffers_: torn down before they are freed
  SampleSeries series_;
  std::vector<double> prepare_ms_;
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
void time_trips(const LabSpec& spec, Trip& student, const GradeKeys& keys, const EventStream& events) {
  const std::unique_ptr<Trip> ours = make_our_trip();
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
      if (const std::string fault = cuda_context_fault(); !fault.empty())
        throw CudaError(fault + " (the GPU context is unusable after the student's trip)", 0);
    };
    const auto ours_failed = [&](const TripError& e) {
      our.reset();
      timed.ours_error = e.what();
    };
    try {
      theirs.emplace(student, TripOf::kStudent, *spec.workload, inputs, label, events);
    } catch (const TripError& e) {
      student_failed(e);
      continue;
    }
    try {
      our.emplace(*ours, TripOf::kOurs, *spec.workload, inputs, label, events);
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

int current_sm() {
  int device = 0, major = 0, minor = 0;
  LB_CUDA_CHECK(cudaGetDevice(&device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  LB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

// splitmix64: a well-mixed 64-bit hash of a counter (workloads/problem.cpp's generator is the same
// construction; this one only makes seeds).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
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
  // Two rounds: a trip's seed is unrelated to the case seed itself (the check's draw at the same
  // shape) and to every other trip's.
  return mix(case_seed ^ mix(static_cast<std::uint64_t>(trip) + 0x7219'B6A0'5C33'E1D5ull));
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
    std::unique_ptr<Trip> student;
    try {
      // The build's line, and when timing, the host link (the ceiling, the limiter line and the
      // plausibility bound read it) measured and reported before the student's library is loaded:
      // no code of the student's has run in this process when they are written.
      const auto before_load = [&](const BuiltTrip& built) {
        events.emit(StudentBuilt{built.command, built.compile_ms});
        if (request.mode == ChildMode::kTime)
          events.emit(TimingEnvironment{.gpu = gpu_name(), .ceilings = link_json(measure_link()), .peaks = nullptr,
                                        .cache_mode = "hot"});
      };
      BuiltTrip built = build_student_trip(
          file, {.sm = current_sm(), .line_info = request.line_info, .debug = request.exact_buffers}, before_load);
      student = std::move(built.trip);
    } catch (const StudentCompileError& e) {
      events.emit(CompileFailed{e.what()});
      return kExitFailed;
    }
    switch (request.mode) {
      case ChildMode::kProfile:
        events.emit(Failure{"this lab is graded end to end: profile the whole trip with Nsight Systems (nsys)"});
        return kExitFailed;
      case ChildMode::kTime:
        time_trips(spec, *student, request.keys, events);
        return kExitPassed;
      case ChildMode::kCheck:
        return check_sizes(spec, *student, request.keys, events) ? kExitPassed : kExitFailed;
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
