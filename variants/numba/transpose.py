# transpose in Numba: a tiled kernel written in Python (_numba_layer.transpose), its shared-memory
# tile padded to TR_TILE + 1 columns against bank conflicts (cuda.shared.array's shape must be a
# constant, so the padded width is a global of its own, TR_PITCH). On 2-D device arrays: the kernel
# reads M and N from A's shape, so only the arrays are passed. The grid is our kernel's (lb_shared),
# x along N (A's columns), y along M; the block is this kernel's own, TR_TILE x TR_ROWS threads of
# one float each (our kernel text moves float4s, which a Numba kernel would spell element by element).
import lb_numba
import lb_shared
import lb_variant
from _numba_layer import check_args, transpose_block


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        m, n = size.m, size.n
        self.stream = lb_numba.stream(setup.stream)
        self.kernel = setup.session.kernel("transpose", setup.cost)
        self.a, self.b = lb_numba.device_array((m, n)), lb_numba.device_array((n, m))
        self.grid, self.block = lb_shared.transpose_grid(m, n), transpose_block()
        self.args = (self.a, self.b)
        check_args("transpose", self.args)

    def upload(self, problem, stream_handle):
        lb_numba.upload(problem.inputs[0], self.a, self.stream)
        lb_numba.upload(problem.output, self.b, self.stream)

    def run(self, stream_handle):
        self.kernel[self.grid, self.block, self.stream](*self.args)

    def download(self, out, stream_handle):
        lb_numba.download(self.b, out, self.stream)
