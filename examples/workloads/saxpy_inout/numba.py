"""y = a * x + y as a Numba CUDA kernel, in place: one thread per element, as kernels.cu."""
import numpy as np
from numba import cuda

BLOCK = 256


@cuda.jit(cache=False)
def _saxpy_inout(a, x, y):
    i = cuda.grid(1)
    if i < y.shape[0]:
        y[i] = a * x[i] + y[i]


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        self.stream = cuda.external_stream(setup.stream)
        self.blocks = (size.n + BLOCK - 1) // BLOCK
        self.x = cuda.device_array(size.n, dtype=np.float32, stream=self.stream)
        self.y = cuda.device_array(size.n, dtype=np.float32, stream=self.stream)

    def upload(self, problem, stream):
        self.a = np.float32(problem.scalars["a"])
        self.x.copy_to_device(problem.inputs["x"], stream=self.stream)
        self.y.copy_to_device(problem.outputs["y"], stream=self.stream)  # an in/out buffer starts as drawn
        self.stream.synchronize()

    def run(self, stream):
        _saxpy_inout[self.blocks, BLOCK, self.stream](self.a, self.x, self.y)

    def download(self, outputs, stream):
        self.y.copy_to_host(outputs["y"], stream=self.stream)
        self.stream.synchronize()
