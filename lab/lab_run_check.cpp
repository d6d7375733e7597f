// The child of `lab check` (`layerbench lab run-check`): the only process that touches the GPU.
#include <functional>
#include <nlohmann/json.hpp>

#include "common/cuda_check.h"
#include "common/gpu.h"
#include "common/stream.h"
#include "harness/verify.h"
#include "lab/feedback.h"
#include "lab/lab_check.h"
#include "lab/lab_kernel.h"

namespace lb::lab {
namespace {

void emit(std::FILE* out, const nlohmann::json& line) {
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

}  // namespace

int run_check_child(const LabSpec& spec, const std::filesystem::path& file, std::uint64_t seed, std::FILE* out) {
  std::string why = gpu_unavailable_reason();
  if (why.empty()) why = driver::api_unavailable_reason();
  if (!why.empty()) {
    emit(out, {{"event", "no_gpu"}, {"reason", why}});
    return kExitCannotRun;
  }
  CostLog costs;
  driver::Session session(LayerConfig{}, costs);  // the primary context, current on this thread
  const Stream stream;
  driver::CompiledKernel compiled;
  try {
    compiled = compile_student_kernel(spec, file, session.sm(), {driver::KernelCache::default_dir(), true});
  } catch (const StudentCompileError& e) {
    emit(out, {{"event", "compile_error"}, {"message", e.what()}});
    return kExitFailed;
  }
  const StudentModule module(compiled.cubin);
  const CUfunction kernel = module.function(spec.kernel);
  const Workload& workload = *spec.workload;
  for (std::size_t i = 0; i < spec.check_sizes.size(); ++i) {
    const Shape& shape = spec.check_sizes[i];
    const std::string& text = spec.check_size_texts[i];
    const HostProblem problem = workload.make_problem(shape, seed ^ std::hash<std::string>{}(workload.size_label(shape)));
    StudentKernel variant(spec, kernel, session.sm_count());
    HostBuffer result;
    try {
      variant.allocate(shape, Setup{stream.get(), &costs, &session});
      const VerifiedRun run = verified_run(variant, workload, problem, result, stream.get(), true);
      const std::int64_t past_end = variant.first_write_past_end(stream.get());
      nlohmann::json line = {{"size", text}, {"passed", run.verdict.passed && past_end < 0}};
      if (past_end >= 0) {
        line["feedback"] = "wrote past the end of the output (index " +
                           std::to_string(workload.output_elements(shape) + past_end) + "; it has " +
                           std::to_string(workload.output_elements(shape)) +
                           " elements) — does every thread check its index against the size before it touches memory?";
      } else if (!run.verdict.passed) {
        const std::string feedback =
            explain_result(workload, shape, result, starting_output(spec, problem), workload.reference(problem));
        line["feedback"] = feedback.empty() ? run.verdict.detail : feedback;
      }
      emit(out, line);
    } catch (const CudaError& e) {  // the context is unusable after most kernel faults: stop here
      emit(out, {{"size", text}, {"cuda_error", student_text(e.what())}});
      return kExitFailed;
    }
  }
  return kExitPassed;
}

}  // namespace lb::lab
