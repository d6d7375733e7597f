# reduce in Numba: one kernel (_numba_layer.block_sum) launched twice on one stream, the stream
# order standing in for a grid-wide barrier: over x with the grid-stride grid the other layers use
# (blocks to fill every SM, lb_shared.grid_stride_blocks), then over the per-block sums with one
# block, which writes the total. Accumulation is float32, per thread and then as a tree.
import lb_numba
import lb_shared
import lb_variant
from _numba_layer import BLOCK, check_args


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        n = size.n
        self.stream = lb_numba.stream(setup.stream)
        self.kernel = setup.session.kernel("block_sum", setup.cost)
        self.blocks = lb_shared.grid_stride_blocks(n, lb_numba.sm_count())
        self.x, self.partials, self.sum = (lb_numba.device_array(count) for count in (n, self.blocks, 1))
        self.over_x = (self.x, n, self.partials)
        self.over_partials = (self.partials, self.blocks, self.sum)
        check_args("block_sum", self.over_x)
        check_args("block_sum", self.over_partials)

    def upload(self, problem, stream_handle):
        lb_numba.upload(problem.inputs[0], self.x, self.stream)
        lb_numba.upload(problem.output, self.sum, self.stream)

    def run(self, stream_handle):
        self.kernel[self.blocks, BLOCK, self.stream](*self.over_x)
        self.kernel[1, BLOCK, self.stream](*self.over_partials)

    def download(self, out, stream_handle):
        lb_numba.download(self.sum, out, self.stream)
