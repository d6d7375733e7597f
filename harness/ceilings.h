// The ceilings every GPU run measures once, on the harness's stream, against which each case's
// rates are read.
#pragma once
#include <cuda_runtime.h>

#include "harness/records.h"

namespace lb {

// Device-to-device copy bandwidth (bytes read + written, decimal GB/s): median of 20 copies of up
// to 1 GiB, after 3 warm-ups. The memory ceiling each GB/s figure is compared with.
CopyCeiling measure_copy_ceiling(cudaStream_t stream);

// cuBLAS SGEMM at 4096^3 in plain fp32 (CUBLAS_DEFAULT_MATH: no TF32 tensor cores), random
// inputs, median of 10 after 3 warm-ups, timed with CUDA events: the matmul ceiling.
SgemmCeiling measure_sgemm_ceiling(cudaStream_t stream);

}  // namespace lb
