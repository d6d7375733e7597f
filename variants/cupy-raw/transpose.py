# transpose with cp.RawModule: our tiled kernel (a TILE x TILE tile of A staged through shared
# memory, so that both the read of A and the write of B are coalesced) and its 2-D grid, x along
# N (A's columns), y along M.
import cupy as cp
import lb_shared
import lb_variant
import numpy as np
from lb_cupy import to_device, to_host, wrap


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n = size.m, size.n
        self.stream = wrap(setup.stream)
        self.kernel = setup.session.kernel("transpose", "transpose", setup.cost)
        self.a = cp.empty((self.m, self.n), dtype=cp.float32)
        self.b = cp.empty((self.n, self.m), dtype=cp.float32)

    def upload(self, problem, stream):
        to_device(problem.inputs[0], self.a, self.stream)
        to_device(problem.output, self.b, self.stream)

    def run(self, stream):
        with self.stream:
            self.kernel(lb_shared.transpose_grid(self.m, self.n), lb_shared.transpose_block(),
                        (self.a, self.b, np.int32(self.m), np.int32(self.n)))

    def download(self, out, stream):
        to_host(self.b, out, self.stream)
