#include "workloads/problem.h"

#include <cstdio>
#include <stdexcept>

namespace lb {
using random_draw::mix;

std::uint64_t case_seed(std::uint64_t run_seed, const Workload& workload, const Shape& shape) {
  // FNV-1a over "<workload>/<size>": the same value on every platform and build (std::hash is not).
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (const char c : workload.name() + "/" + workload.size_label(shape)) h = (h ^ std::uint8_t(c)) * 0x100000001B3ull;
  return mix(run_seed ^ h);
}

HostProblem draw_problem(const Workload& workload, const Shape& shape, std::uint64_t run_seed) {
  return workload.make_problem(shape, case_seed(run_seed, workload, shape));
}

void fill_random(std::span<float> out, std::uint64_t seed, std::uint64_t stream, Draw draw) {
  const std::uint64_t key = random_draw::stream_key(seed, stream);
  const auto count = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = random_draw::element(key, static_cast<std::uint64_t>(i), draw);
}

HostProblem recipe_problem(const Workload& workload, const Shape& shape, std::uint64_t seed) {
  const InputRecipe& recipe = workload.descriptor().recipe;
  const std::vector<std::int64_t> counts = workload.input_elements(shape);
  if (recipe.inputs.size() != counts.size())
    throw std::logic_error(workload.name() + ": its recipe draws " + std::to_string(recipe.inputs.size()) +
                           " inputs, its descriptor has " + std::to_string(counts.size()));
  HostProblem p;
  p.shape = shape;
  for (const std::int64_t count : counts) p.inputs.emplace_back(static_cast<std::size_t>(count));
  p.output.resize(static_cast<std::size_t>(workload.output_elements(shape)));
  redraw_recipe_problem(workload, p, seed);  // the first touch of every buffer, in parallel
  return p;
}

void redraw_recipe_problem(const Workload& workload, HostProblem& p, std::uint64_t seed) {
  const InputRecipe& recipe = workload.descriptor().recipe;
  p.seed = seed;
  p.alpha = recipe.scalar ? random_scalar(seed, recipe.scalar->stream, recipe.scalar->lo, recipe.scalar->hi) : 0.0f;
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    fill_random(p.inputs[i], seed, recipe.inputs[i].stream, recipe.inputs[i].draw);
  if (recipe.output) fill_random(p.output, seed, recipe.output->stream, recipe.output->draw);
  else fill_nan(p.output);
}

HostProblem Workload::make_problem(const Shape& s, std::uint64_t seed) const { return recipe_problem(*this, s, seed); }

HostBuffer random_vector(std::int64_t count, std::uint64_t seed, std::uint64_t stream, Draw draw) {
  HostBuffer v(static_cast<std::size_t>(count));
  fill_random(v, seed, stream, draw);
  return v;
}

float random_scalar(std::uint64_t seed, std::uint64_t stream, float lo, float hi) {
  const std::uint64_t bits = mix(mix(seed ^ 0xA5A5u) + stream);
  return lo + (hi - lo) * (static_cast<float>(bits >> 40) * 0x1.0p-24f);
}

HostBuffer poisoned(std::int64_t count) {
  HostBuffer v(static_cast<std::size_t>(count));
  fill_nan(v);
  return v;
}

void fill_nan(std::span<float> out) {
  const auto count = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = std::numeric_limits<float>::quiet_NaN();
}

void parallel_copy(std::span<const float> src, std::span<float> dst) {
  const auto count = static_cast<std::int64_t>(src.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) dst[i] = src[i];
}

Verdict make_verdict(const ElementCheck& check, double tolerance, const std::string& what) {
  Verdict v;
  v.max_rel_error = check.max_rel_error;
  v.tolerance = tolerance;
  v.passed = check.worst >= 0 && check.max_rel_error <= tolerance;
  if (check.worst < 0) {
    v.detail = "no elements to check";
  } else if (!v.passed) {
    char line[256];
    std::snprintf(line, sizeof line, "%s %lld: got %.9g, expected %.9g (relative error %.3g > tolerance %.3g)",
                  what.c_str(), static_cast<long long>(check.worst), check.worst_got, check.worst_ref,
                  check.max_rel_error, tolerance);
    v.detail = line;
  }
  return v;
}

}  // namespace lb
