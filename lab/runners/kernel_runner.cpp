// The child of a runner whose submission is kernels (lab/runners/kernel_runner.h): the student's
// program loaded, then checked, timed or profiled through the harness.
#include "lab/runners/kernel_runner.h"

#include <algorithm>

#include "common/cuda_check.h"
#include "common/stream.h"
#include "harness/environment.h"
#include "harness/measure.h"
#include "harness/prepare.h"
#include "harness/results_json.h"
#include "harness/verify.h"
#include "lab/child/child_mode.h"  // kStudentSamplingMaxSeconds
#include "lab/child/child_event.h"
#include "lab/child/fresh_inputs.h"
#include "lab/grading/feedback.h"
#include "variants/driver/kernel_program.h"
#include "workloads/problem.h"

namespace lb::lab {
namespace {

// One line to the parent (child_event.h). Text that is not UTF-8 (a compiler's echo of the
// student's file) is written with replacement characters rather than failing the line.
void emit(std::FILE* out, const ChildEvent& event) { write_child_event(out, event); }

// The student's kernel as the harness's timing sees it: a case needs a Layer, and the student's is
// a GPU kernel timed on the harness's stream (Layer::on_gpu). It is registered nowhere: no run,
// list or report ever sees it.
const Layer kStudentLayer{.name = "student", .on_gpu = true};

// "cuX(...) failed at file:line: text (NAME)" -> "text (NAME)": where in layerbench the error
// surfaced means nothing to a student.
std::string student_text(const std::string& message) {
  const std::size_t at = message.find(" failed at ");
  const std::size_t colon = at == std::string::npos ? at : message.find(": ", at);
  return colon == std::string::npos ? message : message.substr(colon + 2);
}

// What the student's output was, after a verified run: empty when right, else the feedback line.
std::string judge(StudentVariant& variant, const LabSpec& spec, const HostProblem& problem, cudaStream_t stream,
                  HostBuffer& result) {
  const Workload& workload = *spec.workload;
  const VerifiedRun run = verified_run(variant, workload, problem, result, stream, true);
  if (const std::int64_t past_end = variant.first_write_past_end(stream); past_end >= 0) {
    const std::int64_t count = workload.output_elements(problem.shape);
    return "wrote past the end of the output (index " + std::to_string(count + past_end) + "; it has " +
           std::to_string(count) +
           " elements) — does every thread check its index against the size before it touches memory?";
  }
  if (run.verdict.passed) return {};
  // A workload folder's check (its reference.py, through the folder) names the output, the element
  // and the bound itself; there is no element-wise reference in floats to explain it further.
  if (spec.folder) return run.verdict.detail;
  const std::string feedback =
      explain_result(workload, problem.shape, result, starting_output(spec, problem), workload.reference(problem));
  return feedback.empty() ? run.verdict.detail : feedback;
}

// The check sizes, one line each; false when one failed.
bool check_sizes(const LabSpec& spec, StudentProgram& program, const Setup& setup, const GradeKeys& keys,
                 std::FILE* out) {
  bool all_passed = true;
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    const Shape& shape = spec.check_sizes[i];
    const HostProblem problem = draw_problem(*spec.workload, shape, key_at(keys.check, i, "check size"));
    const std::unique_ptr<StudentVariant> variant = program.make_variant();
    variant->allocate(shape, setup);
    HostBuffer result;
    const std::string feedback = judge(*variant, spec, problem, setup.stream, result);
    emit(out, SizeChecked{spec.check_size_texts[i], feedback.empty(), feedback});
    all_passed = all_passed && feedback.empty();
  }
  return all_passed;
}

Figures figures(const CaseResult& r) {
  return {.median_ms = r.stats.median_ms, .samples = r.stats.count, .noise = r.stats.rel_stddev,
          .gbps = r.gbps, .gflops = r.gflops, .stop = to_string(r.stop_reason)};
}

// The samples' statistics and rates on `r` (record_samples); false when every sample was
// discarded (throttled).
bool record_kept_samples(CaseResult& r, const SampleSeries& series) {
  if (series.count() == 0) return false;
  record_samples(r, series);
  return true;
}

// The time cap widened for the student's samples by `per_sample_ms` for each of the rule's minimum
// of samples and two more, at most to kStudentSamplingMaxSeconds (the student's share of the
// timing child's limit per size), then restored for ours, also when a timed sample was wrong.
class WidenedTimeCap {
 public:
  WidenedTimeCap(StoppingRule& rule, double per_sample_ms) : rule_(rule), saved_(rule) {
    rule.max_time_s = student_time_cap_s(rule, per_sample_ms);
    rule.cap_min_samples = 1;  // the child's limit bounds a slow student kernel, not compare's need
  }
  ~WidenedTimeCap() { rule_ = saved_; }
  WidenedTimeCap(const WidenedTimeCap&) = delete;
  WidenedTimeCap& operator=(const WidenedTimeCap&) = delete;

 private:
  StoppingRule& rule_;
  StoppingRule saved_;
};

constexpr const char* kThrottled = "every timed sample was discarded: the GPU's clock was throttled";

// The student's kernel beside ours (the lab's baseline layer's) at each benchmark size, timed by the harness
// (cold L2, the stream held, noise-based stopping, throttled samples dropped), on inputs drawn from
// the size's judge key. The student's output is checked before its timed runs, and each of its timed
// samples gets new inputs (drawn from the sample's own key, into the same buffers: on the device,
// or on the host for a workload folder), a re-poisoned output and a fresh scalar, and is verified
// after it (lab/child/fresh_inputs.h): no sample can profit from the one before it, and none can
// be skipped.
void time_benchmarks(const LabSpec& spec, StudentProgram& program, const GradeKeys& keys, std::FILE* out) {
  // The GPU's peaks and ceilings came from a child of their own (measure_environment): none measured here.
  const std::unique_ptr<Environment> env = open_environment(true, {.measure_ceilings = false});
  const cudaStream_t stream = env->gpu_stream();
  LayerSessions sessions(LayerConfig{});
  CaseInputs inputs;
  Progress quiet(stderr, false);
  CostLog costs;
  for (std::size_t size = 0; size < spec.benchmark_sizes.size(); ++size) {
    const Shape& shape = spec.benchmark_sizes[size];
    const std::string label = spec.workload->size_label(shape);
    BenchmarkTimed timed{.size = label};
    CaseResult student;
    student.spec = {spec.workload, &kStudentLayer, shape};
    const HostProblem& problem =
        inputs.problem_for({spec.workload, spec.baseline, shape}, key_at(keys.judge, size, "benchmark size"));
    {
      const std::unique_ptr<StudentVariant> variant = program.make_variant();
      variant->allocate(shape, {stream, &costs, nullptr});
      std::string wrong = judge(*variant, spec, problem, stream, inputs.result());
      if (wrong.empty()) {
        try {
          FreshInputs fresh(*spec.workload, shape, key_at(keys.samples, size, "benchmark size"), *variant, stream);
          // Each sample costs the grade its verification (a download, the problem drawn again and
          // checked on the host: tens of milliseconds at 2^26 where the kernel takes a fraction of
          // one) and, where the problem is drawn on the host (a workload folder's), its draw; the
          // wall-clock cap counts both: it is widened by the rule's minimum of samples' costs (and
          // two more), so that the student's kernel gets that minimum, as ours does.
          const WidenedTimeCap cap(env->options.rule, (fresh.drawn_on_host() ? fresh.refresh_ms() : 0.0) +
                                                          fresh.verify_estimate_ms());
          if (!record_kept_samples(student, take_samples(student, *variant, *env, quiet, &fresh))) {
            emit(out, BenchmarkFailed{label, kThrottled});
            continue;
          }
          timed.samples_verified = fresh.samples_verified();
          timed.input_reset_ms = fresh.refresh_ms();
          timed.sample_verify_ms = fresh.verify_ms();
        } catch (const WrongTimedResult& e) {
          wrong = e.what();
        }
      }
      if (!wrong.empty()) {
        emit(out, BenchmarkFailed{label, wrong});
        continue;
      }
      timed.student = figures(student);
    }
    CaseResult ours;
    ours.spec = {spec.workload, spec.baseline, shape};
    if (const std::unique_ptr<Variant> variant = prepare_case(ours, inputs, *env, sessions)) {
      if (record_kept_samples(ours, take_samples(ours, *variant, *env, quiet))) timed.ours = figures(ours);
      else timed.ours_error = kThrottled;
    } else {
      timed.ours_error = ours.message;
    }
    emit(out, timed);
  }
}

// ChildMode::kEnvironment: the GPU's name, ceilings and theoretical peaks, from a process that
// loads no student code (Runner::environment_apart), and the L2 mode the timing child times in.
int measure_environment(std::FILE* out) {
  const std::unique_ptr<Environment> env = open_environment(true, {});
  emit(out, TimingEnvironment{.gpu = env->device->name,
                              .ceilings = ceilings_json(env->ceilings),
                              .peaks = env->peaks ? peaks_json(*env->peaks) : nlohmann::json(nullptr),
                              .cache_mode = env->options.cold ? "cold" : "hot"});
  return kExitPassed;
}

}  // namespace

double student_time_cap_s(const StoppingRule& rule, double per_sample_ms) {
  const double widened = rule.max_time_s + static_cast<double>(rule.min_samples + 2) * per_sample_ms / 1e3;
  return std::max(rule.max_time_s, std::min(widened, kStudentSamplingMaxSeconds));
}

int KernelRunner::run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request,
                            std::FILE* out) const {
  if (request.mode == ChildMode::kEnvironment) {
    try {
      return measure_environment(out);
    } catch (const std::exception& e) {
      emit(out, Failure{e.what()});
      return kExitFailed;
    }
  }
  CostLog costs;
  // The primary context, current on this thread: the student's module loads into the context the
  // harness's runtime calls use. Declared before the program, so released after its module.
  const driver::PrimaryContext context;
  std::unique_ptr<StudentProgram> program;
  try {
    program = load(spec, file, {context.sm(), context.sm_count(), context.threads_per_sm()},
                   {.line_info = request.line_info, .exact_buffers = request.exact_buffers});
  } catch (const StudentCompileError& e) {
    emit(out, CompileFailed{e.what()});
    return kExitFailed;
  }
  try {
    if (request.mode == ChildMode::kProfile) {
      // One verified run at the first benchmark size: the launch the profiler records.
      const Stream stream;
      const Shape& shape = spec.benchmark_sizes.front();
      const HostProblem problem = draw_problem(*spec.workload, shape, key_at(request.keys.judge, 0, "benchmark size"));
      const std::unique_ptr<StudentVariant> variant = program->make_variant();
      variant->allocate(shape, {stream.get(), &costs, nullptr});
      HostBuffer result;
      const std::string wrong = judge(*variant, spec, problem, stream.get(), result);
      emit(out, Profiled{spec.workload->size_label(shape), wrong.empty(), wrong});
      return wrong.empty() ? kExitPassed : kExitFailed;
    }
    if (request.mode == ChildMode::kTime) {
      time_benchmarks(spec, *program, request.keys, out);
      return kExitPassed;
    }
    const Stream stream;
    return check_sizes(spec, *program, {stream.get(), &costs, nullptr}, request.keys, out) ? kExitPassed : kExitFailed;
  } catch (const CudaError& e) {  // the context is unusable after most kernel faults: stop here
    emit(out, CudaFailure{student_text(e.what())});
    return kExitFailed;
  } catch (const std::exception& e) {  // a Python lab's runner reports the student's exceptions so
    emit(out, Failure{e.what()});
    return kExitFailed;
  }
}

}  // namespace lb::lab
