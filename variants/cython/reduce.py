# reduce through Cython: one wrapper call, one launch in the C++ launcher (reduce_sum, whose last
# block adds the partial sums), with the runtime layer's grid from the device's SM count.
import lb_cython
import lb_variant
from lb_cython import DeviceBuffer


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.blocks = lb_cython.reduce_blocks(self.n)
        self.x, self.partials, self.sum = DeviceBuffer(self.n), DeviceBuffer(self.blocks), DeviceBuffer(1)

    def upload(self, problem, stream):
        self.x.upload(problem.inputs[0], stream)
        self.sum.upload(problem.output, stream)

    def run(self, stream):
        lb_cython.reduce(self.x, self.n, self.partials, self.blocks, self.sum, stream)

    def download(self, out, stream):
        self.sum.download(out, stream)
