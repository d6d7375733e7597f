#include "workloads/fill_random.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "common/cuda_check.h"
#include "workloads/problem.h"

namespace lb {
namespace {

constexpr unsigned kBlock = 256;

// Grid-stride, so one modest grid covers any count (2^28 and beyond) without a grid-size limit.
unsigned blocks_for(std::int64_t count) {
  const std::int64_t wanted = (count + kBlock - 1) / kBlock;
  return static_cast<unsigned>(wanted < 4096 ? (wanted > 0 ? wanted : 1) : 4096);
}

// The key is a kernel parameter (by value): it is in no buffer the student's kernel can read.
__global__ void fill_random_kernel(float* out, std::int64_t count, std::uint64_t key, Draw draw) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = random_draw::element(key, static_cast<std::uint64_t>(i), draw);
}

__global__ void fill_nan_kernel(float* out, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = __int_as_float(0x7FC00000);  // the quiet NaN std::numeric_limits<float> gives on the host
}

}  // namespace

void fill_random_on_device(float* out, std::int64_t count, std::uint64_t key, Draw draw, cudaStream_t stream) {
  if (count <= 0) return;
  fill_random_kernel<<<blocks_for(count), kBlock, 0, stream>>>(out, count, key, draw);
  LB_CHECK_LAUNCH();
}

void fill_nan_on_device(float* out, std::int64_t count, cudaStream_t stream) {
  if (count <= 0) return;
  fill_nan_kernel<<<blocks_for(count), kBlock, 0, stream>>>(out, count);
  LB_CHECK_LAUNCH();
}

float recipe_on_device(const Workload& workload, const Shape& shape, std::uint64_t seed, std::span<float* const> inputs,
                       float* output, cudaStream_t stream) {
  const InputRecipe& recipe = workload.descriptor().recipe;
  const std::vector<std::int64_t> counts = workload.input_elements(shape);
  if (recipe.inputs.size() != counts.size() || inputs.size() != counts.size())
    throw std::logic_error(workload.name() + ": the recipe, the descriptor and the device buffers differ in inputs");
  for (std::size_t i = 0; i < counts.size(); ++i)
    fill_random_on_device(inputs[i], counts[i], random_draw::stream_key(seed, recipe.inputs[i].stream),
                          recipe.inputs[i].draw, stream);
  const std::int64_t out = workload.output_elements(shape);
  if (recipe.output)
    fill_random_on_device(output, out, random_draw::stream_key(seed, recipe.output->stream), recipe.output->draw,
                          stream);
  else
    fill_nan_on_device(output, out, stream);
  // The scalar is drawn on the host, as recipe_problem draws it, and goes to the kernel by value.
  return recipe.scalar ? random_scalar(seed, recipe.scalar->stream, recipe.scalar->lo, recipe.scalar->hi) : 0.0f;
}

}  // namespace lb
