# transpose through Cython: the C++ launcher's 2-D grid of LB_TR_TILE-square tiles and its 2-D
# block, as the runtime layer's.
import lb_cython
import lb_variant
from lb_cython import DeviceBuffer


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.m, self.n = size.m, size.n
        self.a, self.b = DeviceBuffer(self.m * self.n), DeviceBuffer(self.n * self.m)

    def upload(self, problem, stream):
        self.a.upload(problem.inputs[0], stream)
        self.b.upload(problem.output, stream)

    def run(self, stream):
        lb_cython.transpose(self.a, self.b, self.m, self.n, stream)

    def download(self, out, stream):
        self.b.download(out, stream)
