# transpose through PyCUDA: a 2-D grid (tiles along N, tiles along M) and a 2-D block
# (LB_TR_BLOCK_X, LB_TR_ROWS, 1), both tuples. M and N are prepared as np.int32, the kernel's `int`.
import lb_shared
import lb_variant
import numpy as np
from _pycuda_layer import floats, pycuda_context


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n = size.m, size.n
        with pycuda_context():
            self.bridge = setup.session.bridge(setup.cost)
            self.kernel = setup.session.kernel("transpose", "transpose", ["P", "P", np.int32, np.int32], setup.cost)
            self.a, self.b = (floats(self.m * self.n) for _ in range(2))
        self.args = (int(self.a), int(self.b), np.int32(self.m), np.int32(self.n))
        self.grid, self.block = lb_shared.transpose_grid(self.m, self.n), (*lb_shared.transpose_block(), 1)

    def upload(self, problem, stream):
        self.bridge.upload(problem.inputs[0], self.a, stream)
        self.bridge.upload(problem.output, self.b, stream)

    def run(self, stream):
        s = self.bridge.enter(stream)  # PyCUDA's stream, behind the harness's
        self.kernel.prepared_async_call(self.grid, self.block, s, *self.args)
        self.bridge.leave(stream)

    def download(self, out, stream):
        self.bridge.download(self.b, out, stream)
