# vector_add in Numba: a kernel written in Python (_numba_layer.vector_add), one thread per element
# with a bounds check, as Numba's documentation writes it. Our kernel text loads a float4 per
# thread; a Numba kernel indexes its float32 arrays one element at a time, and whatever that costs
# shows here. (A grid-stride loop would change the block count, not the memory traffic.)
import lb_numba
import lb_variant
from _numba_layer import BLOCK, check_args


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        n = size.n
        self.stream = lb_numba.stream(setup.stream)
        self.kernel = setup.session.kernel("vector_add", setup.cost)
        self.a, self.b, self.c = (lb_numba.device_array(n) for _ in range(3))
        self.blocks = (n + BLOCK - 1) // BLOCK
        self.args = (self.a, self.b, self.c, n)  # a Python int is an int64 to Numba
        check_args("vector_add", self.args)

    def upload(self, problem, stream_handle):
        lb_numba.upload(problem.inputs[0], self.a, self.stream)
        lb_numba.upload(problem.inputs[1], self.b, self.stream)
        lb_numba.upload(problem.output, self.c, self.stream)

    def run(self, stream_handle):
        self.kernel[self.blocks, BLOCK, self.stream](*self.args)

    def download(self, out, stream_handle):
        lb_numba.download(self.c, out, self.stream)
