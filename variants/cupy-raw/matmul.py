# matmul with cp.RawModule: our tiled kernel and its grid of 128x128 tiles (K split along z for a
# small C).
import cupy as cp
import lb_shared
import lb_variant
import numpy as np
from _cupy_raw_layer import sm_count
from lb_cupy import to_device, to_host, wrap


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n, self.k = size.m, size.n, size.k
        self.stream = wrap(setup.stream)
        self.kernel = setup.session.kernel("matmul", "matmul_tiled", setup.cost)
        self.grid = lb_shared.matmul_grid(self.m, self.n, self.k, sm_count())
        self.a = cp.empty((self.m, self.k), dtype=cp.float32)
        self.b = cp.empty((self.k, self.n), dtype=cp.float32)
        self.c = cp.empty((self.m, self.n), dtype=cp.float32)

    def upload(self, problem, stream):
        to_device(problem.inputs[0], self.a, self.stream)
        to_device(problem.inputs[1], self.b, self.stream)
        to_device(problem.output, self.c, self.stream)

    def run(self, stream):
        with self.stream:
            self.kernel(self.grid, (lb_shared.MM_THREADS,),
                        (self.a, self.b, self.c, np.int32(self.m), np.int32(self.n), np.int32(self.k)))

    def download(self, out, stream):
        to_host(self.c, out, self.stream)
