// The CUDA runtime API layer: cudaMalloc, cudaMemcpyAsync and <<<>>> launches, all on the stream
// the harness hands each call. This is the reference GPU layer; the others are lessons in what
// they add or hide.
#pragma once
#include <cuda_runtime.h>

#include <memory>

#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "common/gpu.h"
#include "variants/gpu_launch.h"
#include "variants/ladder_launch.h"
#include "variants/variant.h"

namespace lb::runtime {

// Blocks of LB_BLOCK threads for a grid-stride loop over `items` on this device.
inline unsigned grid_for(long long items) { return grid_stride_blocks(items, sm_count()); }

// A ladder rung's kernel (Setup::rung), nvcc-compiled: dynamic shared memory over 48 KiB needs the
// kernel's limit raised once, before its launches.
inline void allow_rung_smem(const void* kernel, unsigned smem_bytes) {
  if (smem_bytes > kDefaultDynamicSmemLimit)
    LB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)));
}
// ...launched with cudaLaunchKernel: the kernel is a pointer the rung file registered, not a name
// known here, so no <<<>>>. `args` holds one pointer per kernel parameter.
inline void launch_rung(const void* kernel, dim3 grid, dim3 block, unsigned smem_bytes, void** args,
                        cudaStream_t stream) {
  LB_CUDA_CHECK(cudaLaunchKernel(kernel, grid, block, args, smem_bytes, stream));
}

// A workload folder's kernel text, through NVRTC and the runtime's own loading of its output
// (workload_folder.cpp): the layer's session, which keeps the loaded libraries, and its variant of
// such a workload (Layer::folder_variant).
std::unique_ptr<LayerSession> open_session(const LayerConfig& config, CostLog& costs);
std::unique_ptr<Variant> folder_variant(const FolderWorkload& workload);

}  // namespace lb::runtime
