# matmul in Numba: the shared-memory tiled kernel of Numba's documentation (_numba_layer.matmul),
# on 2-D device arrays: the kernel reads M, N and K from the arrays' shapes, so only the arrays
# are passed. A 2-D grid and block are tuples, x along N (columns of C), y along M.
import lb_numba
import lb_variant
from _numba_layer import TPB, check_args


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        m, n, k = size.m, size.n, size.k
        self.stream = lb_numba.stream(setup.stream)
        self.kernel = setup.session.kernel("matmul", setup.cost)
        self.a, self.b, self.c = (lb_numba.device_array(dims) for dims in ((m, k), (k, n), (m, n)))
        self.grid = ((n + TPB - 1) // TPB, (m + TPB - 1) // TPB)
        self.args = (self.a, self.b, self.c)
        check_args("matmul", self.args)

    def upload(self, problem, stream_handle):
        lb_numba.upload(problem.inputs[0], self.a, self.stream)
        lb_numba.upload(problem.inputs[1], self.b, self.stream)
        lb_numba.upload(problem.output, self.c, self.stream)

    def run(self, stream_handle):
        self.kernel[self.grid, (TPB, TPB), self.stream](*self.args)

    def download(self, out, stream_handle):
        lb_numba.download(self.c, out, self.stream)
