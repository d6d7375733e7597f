# matmul through Cython: the C++ launcher's grid of 128x128 tiles (K split along z for a small C),
# as the runtime layer's.
import lb_cython
import lb_variant
from lb_cython import DeviceBuffer


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n, self.k = size.m, size.n, size.k
        self.a, self.b, self.c = (DeviceBuffer(count) for count in (self.m * self.k, self.k * self.n, self.m * self.n))

    def upload(self, problem, stream):
        self.a.upload(problem.inputs[0], stream)
        self.b.upload(problem.inputs[1], stream)
        self.c.upload(problem.output, stream)

    def run(self, stream):
        lb_cython.matmul(self.a, self.b, self.c, self.m, self.n, self.k, stream)

    def download(self, out, stream):
        self.c.download(out, stream)
