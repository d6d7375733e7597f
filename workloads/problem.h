// Shared tools for workload specs: seeded inputs, the NaN poison, and the element-wise check.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace lb {

// The seed of one case's inputs: the run's seed (or a lab check's, or a grade's) mixed with the
// workload's name and the size. The one seeding function: `run`, the labs and the tests draw a
// case's inputs through it, so a recorded seed reproduces the same inputs everywhere.
std::uint64_t case_seed(std::uint64_t run_seed, const Workload& workload, const Shape& shape);
// A case's inputs: the workload's problem at `shape`, drawn from case_seed(run_seed, ...). How `run`,
// the labs and the tests all make a case's inputs.
HostProblem draw_problem(const Workload& workload, const Shape& shape, std::uint64_t run_seed);

// The recipe (WorkloadDescriptor::recipe) realised on the host: what make_problem returns unless a
// workload adjusts it, and exactly what recipe_on_device (fill_random.h) writes on the device from
// the same (shape, seed).
HostProblem recipe_problem(const Workload& workload, const Shape& shape, std::uint64_t seed);
// recipe_problem(workload, problem.shape, seed), drawn into `problem`'s own buffers (which a
// recipe_problem at that shape made): a lab's verification of every timed sample draws each
// sample's problem again without a gigabyte of fresh host pages each time.
void redraw_recipe_problem(const Workload& workload, HostProblem& problem, std::uint64_t seed);

// Fills `out` with values drawn as `draw` says (random_draw.h: the device's fill gives the same
// floats). Counter-based, so it runs in parallel and the same (seed, stream) always gives the same
// values.
void fill_random(std::span<float> out, std::uint64_t seed, std::uint64_t stream, Draw draw = Draw::kUnit);
HostBuffer random_vector(std::int64_t count, std::uint64_t seed, std::uint64_t stream, Draw draw = Draw::kUnit);
// One value in [lo, hi) drawn from (seed, stream).
float random_scalar(std::uint64_t seed, std::uint64_t stream, float lo, float hi);

// What an output buffer holds before a verified run, so an element nothing wrote fails the check.
HostBuffer poisoned(std::int64_t count);
// Sets every element to NaN (in parallel).
void fill_nan(std::span<float> out);
// dst = src, element by element, in parallel (the first touch of a fresh dst included).
void parallel_copy(std::span<const float> src, std::span<float> dst);

// Result of comparing a span element by element with a reference.
struct ElementCheck {
  double max_rel_error = 0.0;
  std::int64_t worst = -1;  // index of the worst element (the first NaN if there is one)
  double worst_got = 0.0, worst_ref = 0.0;
};

// Keeps the worse of two checks in `total`.
inline void merge_into(ElementCheck& total, const ElementCheck& other) {
  if (other.worst >= 0 && (total.worst < 0 || other.max_rel_error > total.max_rel_error)) total = other;
}

// |got - expected| relative to scale (a bound on the size of the terms that made the element, so
// cancellation cannot make a correct result look wrong); NaN counts as infinite error.
inline double relative_error(float got, double expected, double scale) {
  const double err = std::fabs(static_cast<double>(got) - expected) / scale;
  return std::isnan(err) ? std::numeric_limits<double>::infinity() : err;
}

// Compares got[i] with ref(i) relative to scale(i) (a bound on the size of the terms that made the
// element, so cancellation cannot make a correct result look wrong). NaN counts as infinite error.
template <class Ref, class Scale>
ElementCheck check_elements(std::span<const float> got, Ref ref, Scale scale) {
  ElementCheck total;
  const auto count = static_cast<std::int64_t>(got.size());
#pragma omp parallel
  {
    ElementCheck local;
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < count; ++i) {
      const double expected = ref(i);
      const double err = relative_error(got[i], expected, scale(i));
      if (local.worst < 0 || err > local.max_rel_error) {
        local.max_rel_error = err;
        local.worst = i;
        local.worst_got = got[i];
        local.worst_ref = expected;
      }
    }
#pragma omp critical
    merge_into(total, local);
  }
  return total;
}

// Every element's reference and scale, tabulated (in parallel) from the same functions a
// workload's verify() checks with, so the formula exists once.
template <class Ref, class Scale>
Reference tabulate_reference(std::int64_t count, Ref ref, Scale scale, double tolerance) {
  Reference r;
  r.expected.resize(static_cast<std::size_t>(count));
  r.scale.resize(static_cast<std::size_t>(count));
  r.tolerance = tolerance;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    r.expected[i] = ref(i);
    r.scale[i] = scale(i);
  }
  return r;
}

// Turns a check into a verdict with a one-line explanation of the worst element.
Verdict make_verdict(const ElementCheck& check, double tolerance, const std::string& what);

constexpr double kFloatEps = std::numeric_limits<float>::epsilon();  // 2^-23

}  // namespace lb
