"""Row-wise softmax as a Numba CUDA kernel: one block per row, as kernels.cu, with the two block
reductions through shared memory (a tree, no warp shuffles: what Numba makes simplest)."""
import math

import numpy as np
from numba import cuda, float32

BLOCK = 256


@cuda.jit(device=True)
def _block_reduce(shared, t, value, is_max):
    """The block's max (is_max) or sum of each thread's `value`, as a tree in shared memory."""
    shared[t] = value
    cuda.syncthreads()
    step = BLOCK // 2
    while step > 0:
        if t < step:
            shared[t] = max(shared[t], shared[t + step]) if is_max else shared[t] + shared[t + step]
        cuda.syncthreads()
        step //= 2
    result = shared[0]
    cuda.syncthreads()  # shared is reused by the next reduction
    return result


@cuda.jit(cache=False)
def _row_softmax(x, y):
    shared = cuda.shared.array(BLOCK, dtype=float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    n = x.shape[1]
    top = float32(-math.inf)
    for c in range(t, n, BLOCK):
        top = max(top, x[row, c])
    top = _block_reduce(shared, t, top, True)
    s = float32(0.0)
    for c in range(t, n, BLOCK):
        s += math.exp(x[row, c] - top)
    inverse = float32(1.0) / _block_reduce(shared, t, s, False)
    for c in range(t, n, BLOCK):
        y[row, c] = math.exp(x[row, c] - top) * inverse


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        self.stream = cuda.external_stream(setup.stream)
        self.rows = size.m
        self.x = cuda.device_array((size.m, size.n), dtype=np.float32, stream=self.stream)
        self.y = cuda.device_array((size.m, size.n), dtype=np.float32, stream=self.stream)

    def upload(self, problem, stream):
        self.x.copy_to_device(problem.inputs["x"], stream=self.stream)
        self.y.copy_to_device(problem.outputs["y"], stream=self.stream)
        self.stream.synchronize()

    def run(self, stream):
        _row_softmax[self.rows, BLOCK, self.stream](self.x, self.y)

    def download(self, outputs, stream):
        self.y.copy_to_host(outputs["y"], stream=self.stream)
        self.stream.synchronize()
