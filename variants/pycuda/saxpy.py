# saxpy through PyCUDA: alpha is declared np.float32 in prepare(), the kernel's `float alpha`;
# prepared_async_call packs it as 4 bytes (a Python float alone would say nothing of its width).
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
            self.kernel = setup.session.kernel("saxpy", "saxpy", [np.float32, "P", "P", np.int64], setup.cost)
            self.x, self.y = (floats(self.n) for _ in range(2))
        self.grid, self.block = (lb_shared.flat_blocks(self.n), 1), (lb_shared.BLOCK, 1, 1)

    def upload(self, problem, stream):
        self.args = (np.float32(problem.alpha), int(self.x), int(self.y), np.int64(self.n))
        self.bridge.upload(problem.inputs[0], self.x, stream)
        self.bridge.upload(problem.output, self.y, stream)

    def run(self, stream):
        s = self.bridge.enter(stream)  # PyCUDA's stream, behind the harness's
        self.kernel.prepared_async_call(self.grid, self.block, s, *self.args)
        self.bridge.leave(stream)

    def download(self, out, stream):
        self.bridge.download(self.y, out, stream)
