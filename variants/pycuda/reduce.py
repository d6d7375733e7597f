# reduce through PyCUDA: one function of a SourceModule, prepare()d: the argument format lives on
# the Function object get_function() returns. reduce_sum's last block adds the partial sums; it is
# launched on PyCUDA's stream with the runtime layer's grid.
import lb_shared
import lb_variant
import numpy as np
from _pycuda_layer import floats, pycuda_context, sm_count


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        with pycuda_context():
            self.bridge = setup.session.bridge(setup.cost)
            self.kernel = setup.session.kernel("reduce", "reduce_sum", ["P", np.int64, "P", "P"], setup.cost)
            self.blocks = lb_shared.grid_stride_blocks(self.n // 4, sm_count())
            self.x, self.partials, self.sum = floats(self.n), floats(self.blocks), floats(1)
        self.block = (lb_shared.BLOCK, 1, 1)
        self.args = (int(self.x), np.int64(self.n), int(self.partials), int(self.sum))

    def upload(self, problem, stream):
        self.bridge.upload(problem.inputs[0], self.x, stream)
        self.bridge.upload(problem.output, self.sum, stream)

    def run(self, stream):
        s = self.bridge.enter(stream)
        self.kernel.prepared_async_call((self.blocks, 1), self.block, s, *self.args)
        self.bridge.leave(stream)

    def download(self, out, stream):
        self.bridge.download(self.sum, out, stream)
