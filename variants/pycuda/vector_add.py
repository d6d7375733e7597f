# vector_add through PyCUDA: our kernel text compiled by SourceModule (nvcc), launched with
# prepared_async_call, PyCUDA's fast path: the C argument types are declared once by prepare()
# ("P" a pointer, np.int64 for `long long n`), where a plain function(...) call inspects every
# argument's type on every launch. The launch goes on PyCUDA's stream, bridged to the harness's.
import lb_shared
import lb_variant
import numpy as np
from _pycuda_layer import floats, pycuda_context


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        with pycuda_context():
            self.bridge = setup.session.bridge(setup.cost)
            self.kernel = setup.session.kernel("vector_add", "vector_add", ["P", "P", "P", np.int64], setup.cost)
            self.a, self.b, self.c = (floats(self.n) for _ in range(3))
        self.args = (int(self.a), int(self.b), int(self.c), np.int64(self.n))
        self.grid, self.block = (lb_shared.flat_blocks(self.n), 1), (lb_shared.BLOCK, 1, 1)

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
