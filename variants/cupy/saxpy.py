# saxpy with a CuPy ElementwiseKernel: the body is one line of C, CuPy writes the loop, the index
# arithmetic and the launch around it. y is an output that is also read, so it is updated in place.
import cupy as cp
import numpy as np
import lb_variant
from lb_cupy import to_device, to_host, wrap

saxpy = cp.ElementwiseKernel("float32 alpha, float32 x", "float32 y", "y = alpha * x + y", "lb_saxpy")


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.stream = wrap(setup.stream)
        self.x, self.y = (cp.empty(size.n, dtype=cp.float32) for _ in range(2))

    def upload(self, problem, stream):
        self.alpha = np.float32(problem.alpha)
        to_device(problem.inputs[0], self.x, self.stream)
        to_device(problem.output, self.y, self.stream)  # y's starting values

    def run(self, stream):
        with self.stream:
            saxpy(self.alpha, self.x, self.y)

    def download(self, out, stream):
        to_host(self.y, out, self.stream)
