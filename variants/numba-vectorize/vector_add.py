# vector_add as a CUDA ufunc: add(a, b) is a scalar function, @vectorize makes it elementwise, and
# out= names the result's device array (without it, every call would allocate a new one). Numba
# writes the kernel and picks the grid and the block: the largest block the kernel allows.
import lb_numba
import lb_variant
from _numba_vectorize_layer import first_call


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        n = size.n
        self.stream = lb_numba.stream(setup.stream)
        self.add = setup.session.ufunc("add", setup.cost)
        self.a, self.b, self.c = (lb_numba.device_array(n) for _ in range(3))
        lb_numba.zero(self.stream, self.a, self.b, self.c)
        first_call("@vectorize add", self.add, lambda: self.run(setup.stream), setup.cost)

    def upload(self, problem, stream_handle):
        lb_numba.upload(problem.inputs[0], self.a, self.stream)
        lb_numba.upload(problem.inputs[1], self.b, self.stream)
        lb_numba.upload(problem.output, self.c, self.stream)

    def run(self, stream_handle):
        self.add(self.a, self.b, out=self.c, stream=self.stream)

    def download(self, out, stream_handle):
        lb_numba.download(self.c, out, self.stream)
