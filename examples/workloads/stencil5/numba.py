"""stencil5 as a Numba CUDA kernel: the same one-thread-per-output shape as kernels.cu, written in
Python and compiled by Numba on first use (a one-time cost the report shows)."""
import numpy as np
from numba import cuda


@cuda.jit(cache=False)
def _stencil5(x, w, y):
    i = cuda.grid(1)
    if i < y.shape[0]:
        s = np.float32(0.0)
        for j in range(5):
            s += w[j] * x[i + j]
        y[i] = s


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        self.stream = cuda.external_stream(setup.stream)
        self.x = cuda.device_array(size.n + 4, dtype=np.float32, stream=self.stream)
        self.w = cuda.device_array(5, dtype=np.float32, stream=self.stream)
        self.y = cuda.device_array(size.n, dtype=np.float32, stream=self.stream)
        self.blocks = (size.n + 255) // 256

    def upload(self, problem, stream):
        self.x.copy_to_device(problem.inputs["x"], stream=self.stream)
        self.w.copy_to_device(problem.inputs["w"], stream=self.stream)
        self.y.copy_to_device(problem.outputs["y"], stream=self.stream)
        self.stream.synchronize()

    def run(self, stream):
        _stencil5[self.blocks, 256, self.stream](self.x, self.w, self.y)

    def download(self, outputs, stream):
        self.y.copy_to_host(outputs["y"], stream=self.stream)
        self.stream.synchronize()
