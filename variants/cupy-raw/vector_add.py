# vector_add with cp.RawModule: our kernel text, our launch shape (one thread per float4), CuPy's
# arrays and stream. The scalar argument's type must match the kernel's `long long n` exactly:
# CuPy packs what it is given, so it gets an np.int64.
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
        self.kernel = setup.session.kernel("vector_add", "vector_add", setup.cost)
        self.a, self.b, self.c = (cp.empty(self.n, dtype=cp.float32) for _ in range(3))

    def upload(self, problem, stream):
        to_device(problem.inputs[0], self.a, self.stream)
        to_device(problem.inputs[1], self.b, self.stream)
        to_device(problem.output, self.c, self.stream)

    def run(self, stream):
        with self.stream:
            self.kernel((lb_shared.flat_blocks(self.n),), (lb_shared.BLOCK,), (self.a, self.b, self.c, np.int64(self.n)))

    def download(self, out, stream):
        to_host(self.c, out, self.stream)
