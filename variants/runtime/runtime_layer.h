// The CUDA runtime API layer: cudaMalloc, cudaMemcpyAsync and <<<>>> launches, all on the stream
// the harness hands each call. This is the reference GPU layer; the others are lessons in what
// they add or hide.
#pragma once
#include <cuda_runtime.h>

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/gpu.h"
#include "variants/gpu_launch.h"
#include "variants/variant.h"

namespace lb::runtime {

// Blocks of LB_BLOCK threads for a grid-stride loop over `items` on this device.
inline unsigned grid_for(long long items) { return grid_stride_blocks(items, sm_count()); }

}  // namespace lb::runtime
