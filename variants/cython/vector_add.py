# vector_add through Cython: three DeviceBuffers and one call of the wrapped C++ launcher, which
# launches the runtime layer's nvcc-built kernel with its grid on the harness's stream.
import lb_cython
import lb_variant
from lb_cython import DeviceBuffer


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.a, self.b, self.c = (DeviceBuffer(self.n) for _ in range(3))

    def upload(self, problem, stream):
        self.a.upload(problem.inputs[0], stream)
        self.b.upload(problem.inputs[1], stream)
        self.c.upload(problem.output, stream)

    def run(self, stream):
        lb_cython.vector_add(self.a, self.b, self.c, self.n, stream)

    def download(self, out, stream):
        self.c.download(out, stream)
