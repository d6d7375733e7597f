#include "harness/prepare.h"

#include <chrono>
#include <new>
#include <stdexcept>

#include "common/cuda_check.h"
#include "common/elapsed.h"
#include "harness/clocks.h"
#include "harness/verify.h"
#include "workloads/problem.h"

namespace lb {

const HostProblem& CaseInputs::problem_for(const Case& c, std::uint64_t suite_seed) {
  if (!problem_ || workload_ != c.workload || !(shape_ == c.shape)) {
    problem_.reset();  // free the old one before drawing the new one
    problem_ = std::make_unique<const HostProblem>(draw_problem(*c.workload, c.shape, suite_seed));
    workload_ = c.workload;
    shape_ = c.shape;
  }
  return *problem_;
}

std::unique_ptr<Variant> make_variant(const Case& c, cudaStream_t stream, LayerSessions& sessions, CostLog& costs) {
  const VariantFactory* factory = find_variant(c.layer->name, c.workload->name());
  if (!factory) throw std::logic_error("no variant registered for " + c.name());
  // A variant that ignored the rung would run its own kernel under the rung's name.
  if (c.rung && (!c.layer->runs_rungs || c.rung->workload != c.workload->name()))
    throw std::logic_error(c.layer->name + " cannot run rung " + c.rung->id() + " for " + c.workload->name());
  std::unique_ptr<Variant> variant = (*factory)();
  variant->allocate(c.shape, Setup{stream, &costs, sessions.open(*c.layer), c.rung});
  return variant;
}

std::unique_ptr<Variant> prepare_case(CaseResult& r, CaseInputs& inputs, const Environment& env,
                                      LayerSessions& sessions) {
  const Case& c = r.spec;
  const bool gpu = c.layer->on_gpu;
  const cudaStream_t stream = env.stream_for(*c.layer);
  try {
    const HostProblem& problem = inputs.problem_for(c, env.options.seed);
    r.seed = problem.seed;

    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<Variant> variant = make_variant(c, stream, sessions, r.one_time_costs);
    r.allocate_ms = ms_since(t0);

    // Warm-up. The first run pays for lazy module loading and first touches, on the host before
    // the work is enqueued, so it is timed on the host clock (launch to completion). A check runs
    // each case once: the verified run below is its only run.
    if (!env.options.check_only) {
      variant->upload(problem, stream);
      const auto clock = make_sample_clock(gpu, stream, env.on_host_clock(*c.layer));
      t0 = std::chrono::steady_clock::now();
      clock->start();
      variant->run(stream);
      clock->stop_ms();
      r.first_run_ms = ms_since(t0);
    }

    const VerifiedRun verified = verified_run(*variant, *c.workload, problem, inputs.result(), stream, gpu);
    r.end_to_end_ms = verified.end_to_end_ms;
    r.verdict = verified.verdict;
    r.checked = true;
    if (!r.verdict.passed) {
      r.status = CaseStatus::kFailed;
      r.message = "verification failed: " + r.verdict.detail;
      return nullptr;
    }
    r.status = CaseStatus::kOk;
    return variant;
  } catch (const DeviceOutOfMemory& e) {
    r.status = CaseStatus::kSkipped;
    r.message = std::string("does not fit in device memory: ") + e.what();
  } catch (const std::bad_alloc&) {
    r.status = CaseStatus::kSkipped;
    r.message = "does not fit in host memory (std::bad_alloc)";
  } catch (const std::exception& e) {
    r.status = CaseStatus::kFailed;
    r.message = e.what();
  }
  return nullptr;
}

}  // namespace lb
