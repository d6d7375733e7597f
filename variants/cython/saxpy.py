# saxpy through Cython: y updated in place; alpha crosses as the wrapper's C `float`.
import lb_cython
import lb_variant
from lb_cython import DeviceBuffer


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.x, self.y = DeviceBuffer(self.n), DeviceBuffer(self.n)

    def upload(self, problem, stream):
        self.alpha = problem.alpha
        self.x.upload(problem.inputs[0], stream)
        self.y.upload(problem.output, stream)

    def run(self, stream):
        lb_cython.saxpy(self.alpha, self.x, self.y, self.n, stream)

    def download(self, out, stream):
        self.y.download(out, stream)
