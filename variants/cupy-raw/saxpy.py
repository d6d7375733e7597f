# saxpy with cp.RawModule: our kernel, alpha passed as np.float32 (a Python float would be packed
# as a double and the kernel would read garbage).
import cupy as cp
import lb_shared
import lb_variant
import numpy as np
from lb_cupy import to_device, to_host, wrap


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = wrap(setup.stream)
        self.kernel = setup.session.kernel("saxpy", "saxpy", setup.cost)
        self.x, self.y = (cp.empty(self.n, dtype=cp.float32) for _ in range(2))

    def upload(self, problem, stream):
        self.alpha = np.float32(problem.alpha)
        to_device(problem.inputs[0], self.x, self.stream)
        to_device(problem.output, self.y, self.stream)

    def run(self, stream):
        with self.stream:
            self.kernel((lb_shared.flat_blocks(self.n),), (lb_shared.BLOCK,), (self.alpha, self.x, self.y, np.int64(self.n)))

    def download(self, out, stream):
        to_host(self.y, out, self.stream)
