# matmul through PyCUDA: the grid is a tuple (tiles along N, tiles along M, splits of K). M, N, K are
# declared np.int32, the kernel's `int`: PyCUDA's plain function(...) call refuses a bare Python int
# outright (it cannot tell its width), so the width is said once, in prepare().
import lb_shared
import lb_variant
import numpy as np
from _pycuda_layer import floats, pycuda_context, sm_count


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n, self.k = size.m, size.n, size.k
        with pycuda_context():
            self.bridge = setup.session.bridge(setup.cost)
            self.kernel = setup.session.kernel("matmul", "matmul_tiled", ["P", "P", "P", np.int32, np.int32, np.int32],
                                               setup.cost)
            self.a, self.b, self.c = (floats(count) for count in (self.m * self.k, self.k * self.n, self.m * self.n))
            self.grid = lb_shared.matmul_grid(self.m, self.n, self.k, sm_count())
        self.args = (int(self.a), int(self.b), int(self.c), np.int32(self.m), np.int32(self.n), np.int32(self.k))
        self.block = (lb_shared.MM_THREADS, 1, 1)

    def upload(self, problem, stream):
        self.bridge.upload(problem.inputs[0], self.a, stream)
        self.bridge.upload(problem.inputs[1], self.b, stream)
        self.bridge.upload(problem.output, self.c, stream)

    def run(self, stream):
        s = self.bridge.enter(stream)  # PyCUDA's stream, behind the harness's
        self.kernel.prepared_async_call(self.grid, self.block, s, *self.args)
        self.bridge.leave(stream)

    def download(self, out, stream):
        self.bridge.download(self.c, out, stream)
