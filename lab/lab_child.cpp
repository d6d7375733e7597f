// The child of `lab check|grade|profile` (`layerbench lab run-child`): the only process that
// touches the GPU, and the only one that runs the student's code.
#include <nlohmann/json.hpp>

#include "common/cuda_check.h"
#include "common/gpu.h"
#include "common/stream.h"
#include "harness/environment.h"
#include "harness/measure.h"
#include "harness/prepare.h"
#include "harness/verify.h"
#include "lab/feedback.h"
#include "lab/lab_check.h"
#include "lab/lab_kernel.h"
#include "lab/rotating_inputs.h"
#include "workloads/problem.h"

namespace lb::lab {
namespace {

using nlohmann::json;

void emit(std::FILE* out, const json& line) {
  std::fprintf(out, "%s\n", line.dump().c_str());
  std::fflush(out);
}

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
  const std::string feedback =
      explain_result(workload, problem.shape, result, starting_output(spec, problem), workload.reference(problem));
  return feedback.empty() ? run.verdict.detail : feedback;
}

// The check sizes, one line each; false when one failed.
bool check_sizes(const LabSpec& spec, StudentProgram& program, const Setup& setup, std::uint64_t seed,
                 std::FILE* out) {
  bool all_passed = true;
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    const Shape& shape = spec.check_sizes[i];
    const HostProblem problem = spec.workload->make_problem(shape, case_seed(seed, *spec.workload, shape));
    const std::unique_ptr<StudentVariant> variant = program.make_variant();
    variant->allocate(shape, setup);
    HostBuffer result;
    const std::string feedback = judge(*variant, spec, problem, setup.stream, result);
    json line = {{"size", spec.check_size_texts[i]}, {"passed", feedback.empty()}};
    if (!feedback.empty()) line["feedback"] = feedback;
    emit(out, line);
    all_passed = all_passed && feedback.empty();
  }
  return all_passed;
}

json figures(const CaseResult& r) {
  return {{"median_ms", r.stats.median_ms}, {"noise", r.stats.rel_stddev}, {"samples", r.stats.count},
          {"stop", to_string(r.stop_reason)}, {"gbps", r.gbps},   {"gflops", r.gflops}};
}

// The samples' statistics and rates on `r` (record_samples); false when every sample was
// discarded (throttled).
bool record_kept_samples(CaseResult& r, const SampleSeries& series) {
  if (series.count() == 0) return false;
  record_samples(r, series);
  return true;
}

constexpr const char* kThrottled = "every timed sample was discarded: the GPU's clock was throttled";

// The student's kernel beside the runtime layer's at each benchmark size, timed by the harness
// (cold L2, the stream held, noise-based stopping, throttled samples dropped), on inputs drawn from
// this grade's seed. The student's output is checked before its timed runs, and its timed samples
// get fresh inputs and a re-poisoned output each, some of them verified (lab/rotating_inputs.h).
void time_benchmarks(const LabSpec& spec, StudentProgram& program, driver::Session& session, std::uint64_t seed,
                     std::FILE* out) {
  const std::unique_ptr<Environment> env = open_environment(true, {.seed = seed});
  emit(out, {{"event", "environment"},
             {"gpu", env->device["name"]},
             {"ceilings", env->ceilings},
             {"peaks", env->peaks ? peaks_json(*env->peaks) : json(nullptr)},
             {"cache_mode", env->options.cold ? "cold" : "hot"}});
  const cudaStream_t stream = env->gpu_stream();
  static const Layer student_layer{.name = "student", .on_gpu = true};
  LayerSessions sessions(LayerConfig{});
  CaseInputs inputs;
  Progress quiet(stderr, false);
  CostLog costs;
  for (const Shape& shape : spec.benchmark_sizes) {
    const std::string label = spec.workload->size_label(shape);
    json line = {{"benchmark", label}};
    CaseResult student;
    student.spec = {spec.workload, &student_layer, shape};
    const HostProblem& problem = inputs.problem_for({spec.workload, find_layer("runtime"), shape}, seed);
    {
      const std::unique_ptr<StudentVariant> variant = program.make_variant();
      variant->allocate(shape, {stream, &costs, &session});
      std::string wrong = judge(*variant, spec, problem, stream, inputs.result());
      if (wrong.empty()) {
        try {
          RotatingInputs rotating(*spec.workload, shape, seed, *variant, stream);
          if (!record_kept_samples(student, take_samples(student, *variant, *env, quiet, &rotating))) {
            emit(out, {{"benchmark", label}, {"error", kThrottled}});
            continue;
          }
          line["samples_verified"] = rotating.samples_verified();
          line["input_reset_ms"] = rotating.reset_ms();
        } catch (const WrongTimedResult& e) {
          wrong = e.what();
        }
      }
      if (!wrong.empty()) {
        line["error"] = wrong;
        emit(out, line);
        continue;
      }
      line["student"] = figures(student);
    }
    CaseResult ours;
    ours.spec = {spec.workload, find_layer("runtime"), shape};
    if (const std::unique_ptr<Variant> variant = prepare_case(ours, inputs, *env, sessions)) {
      if (record_kept_samples(ours, take_samples(ours, *variant, *env, quiet))) line["runtime"] = figures(ours);
      else line["runtime_error"] = kThrottled;
    } else {
      line["runtime_error"] = ours.message;
    }
    emit(out, line);
  }
}

}  // namespace

int run_child(const LabSpec& spec, const std::filesystem::path& file, const ChildRequest& request, std::FILE* out) {
  std::string why = gpu_unavailable_reason();
  if (why.empty()) why = driver::api_unavailable_reason();
  if (!why.empty()) {
    emit(out, {{"event", "no_gpu"}, {"reason", why}});
    return kExitCannotRun;
  }
  CostLog costs;
  driver::Session session(LayerConfig{}, costs);  // the primary context, current on this thread
  std::unique_ptr<StudentProgram> program;
  try {
    program = load_student_program(spec, file, session,
                                   {.line_info = request.line_info, .exact_buffers = request.exact_buffers});
  } catch (const StudentCompileError& e) {
    emit(out, {{"event", "compile_error"}, {"message", e.what()}});
    return kExitFailed;
  }
  try {
    if (request.mode == ChildMode::kProfile) {
      // One verified run at the first benchmark size: the launch the profiler records.
      const Stream stream;
      const Shape& shape = spec.benchmark_sizes.front();
      const HostProblem problem = spec.workload->make_problem(shape, case_seed(request.seed, *spec.workload, shape));
      const std::unique_ptr<StudentVariant> variant = program->make_variant();
      variant->allocate(shape, {stream.get(), &costs, &session});
      HostBuffer result;
      const std::string wrong = judge(*variant, spec, problem, stream.get(), result);
      json line = {{"profiled", spec.workload->size_label(shape)}, {"passed", wrong.empty()}};
      if (!wrong.empty()) line["feedback"] = wrong;
      emit(out, line);
      return wrong.empty() ? kExitPassed : kExitFailed;
    }
    if (request.mode == ChildMode::kTime) {
      time_benchmarks(spec, *program, session, request.seed, out);
      return kExitPassed;
    }
    const Stream stream;
    return check_sizes(spec, *program, {stream.get(), &costs, &session}, request.seed, out) ? kExitPassed : kExitFailed;
  } catch (const CudaError& e) {  // the context is unusable after most kernel faults: stop here
    emit(out, {{"cuda_error", student_text(e.what())}});
    return kExitFailed;
  } catch (const std::exception& e) {  // a Python lab's runner reports the student's exceptions so
    emit(out, {{"error", e.what()}});
    return kExitFailed;
  }
}

}  // namespace lb::lab
