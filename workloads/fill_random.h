// The device half of the input generator (workloads/random_draw.h): the same values as the host's
// fill_random, written straight into device memory on a stream. The lab draws each timed sample's
// inputs with it (lab/child/fresh_inputs.h); the tests hold it to the host's, bit for bit.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <span>

#include "workloads/random_draw.h"
#include "workloads/workload.h"

namespace lb {

// out[i] = random_draw::element(key, i, draw) for i < count, on `stream`. `key` is
// random_draw::stream_key(seed, stream id), passed by value: it stays in the kernel's parameters.
void fill_random_on_device(float* out, std::int64_t count, std::uint64_t key, Draw draw, cudaStream_t stream);
// Every element of out[0, count) set to a quiet NaN (the poison), on `stream`.
void fill_nan_on_device(float* out, std::int64_t count, cudaStream_t stream);

// The device realisation of `workload`'s recipe (WorkloadDescriptor::recipe) at `shape` from `seed`:
// each input drawn into inputs[i] (workload.input_elements(shape)[i] floats), the output's starting
// contents (NaN poison or its draw) into `output` (workload.output_elements(shape) floats), all on
// `stream`; returns the scalar (0 when the recipe has none). The same values as
// recipe_problem(workload, shape, seed) (problem.h) draws on the host.
float recipe_on_device(const Workload& workload, const Shape& shape, std::uint64_t seed, std::span<float* const> inputs,
                       float* output, cudaStream_t stream);

}  // namespace lb
