"""Row-wise softmax as three Numba CUDA kernels, as kernels.cu: the row max and the row sum of
exp(x - max), one block per row with a tree reduction in shared memory, then the element-wise
normalisation on a 2D grid."""
import math

import numpy as np
from numba import cuda, float32

BLOCK = 256


@cuda.jit(device=True)
def _block_reduce(shared, t, value, is_max):
    shared[t] = value
    cuda.syncthreads()
    step = BLOCK // 2
    while step > 0:
        if t < step:
            shared[t] = max(shared[t], shared[t + step]) if is_max else shared[t] + shared[t + step]
        cuda.syncthreads()
        step //= 2
    return shared[0]


@cuda.jit(cache=False)
def _row_max(x, row_max):
    shared = cuda.shared.array(BLOCK, dtype=float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    top = float32(-math.inf)
    for c in range(t, x.shape[1], BLOCK):
        top = max(top, x[row, c])
    top = _block_reduce(shared, t, top, True)
    if t == 0:
        row_max[row] = top


@cuda.jit(cache=False)
def _row_sum(x, row_max, row_sum):
    shared = cuda.shared.array(BLOCK, dtype=float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    top = row_max[row]
    s = float32(0.0)
    for c in range(t, x.shape[1], BLOCK):
        s += math.exp(x[row, c] - top)
    s = _block_reduce(shared, t, s, False)
    if t == 0:
        row_sum[row] = s


@cuda.jit(cache=False)
def _normalise(x, row_max, row_sum, y):
    row, c = cuda.blockIdx.x, cuda.blockIdx.y * cuda.blockDim.x + cuda.threadIdx.x
    if c < x.shape[1]:
        y[row, c] = math.exp(x[row, c] - row_max[row]) / row_sum[row]


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        self.stream = cuda.external_stream(setup.stream)
        self.m, self.n = size.m, size.n
        self.x = cuda.device_array((size.m, size.n), dtype=np.float32, stream=self.stream)
        self.y = cuda.device_array((size.m, size.n), dtype=np.float32, stream=self.stream)
        self.row_max = cuda.device_array(size.m, dtype=np.float32, stream=self.stream)
        self.row_sum = cuda.device_array(size.m, dtype=np.float32, stream=self.stream)

    def upload(self, problem, stream):
        self.x.copy_to_device(problem.inputs["x"], stream=self.stream)
        for name in ("y", "row_max", "row_sum"):
            getattr(self, name).copy_to_device(problem.outputs[name], stream=self.stream)
        self.stream.synchronize()

    def run(self, stream):
        _row_max[self.m, BLOCK, self.stream](self.x, self.row_max)
        _row_sum[self.m, BLOCK, self.stream](self.x, self.row_max, self.row_sum)
        _normalise[(self.m, (self.n + BLOCK - 1) // BLOCK), BLOCK, self.stream](self.x, self.row_max, self.row_sum, self.y)

    def download(self, outputs, stream):
        for name in ("y", "row_max", "row_sum"):
            getattr(self, name).copy_to_host(outputs[name], stream=self.stream)
        self.stream.synchronize()
