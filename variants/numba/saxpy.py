# saxpy in Numba: y = alpha x + y in place, one thread per element. alpha goes as np.float32, the
# type the kernel is compiled for: a specialized dispatcher converts each argument to its
# signature's type without looking at it, so check_args (in upload(), where alpha is known) is
# what holds the variant to the signature.
import lb_numba
import lb_variant
import numpy as np
from _numba_layer import BLOCK, check_args


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = lb_numba.stream(setup.stream)
        self.kernel = setup.session.kernel("saxpy", setup.cost)
        self.x, self.y = (lb_numba.device_array(self.n) for _ in range(2))
        self.blocks = (self.n + BLOCK - 1) // BLOCK

    def upload(self, problem, stream_handle):
        self.args = (np.float32(problem.alpha), self.x, self.y, self.n)
        check_args("saxpy", self.args)
        lb_numba.upload(problem.inputs[0], self.x, self.stream)
        lb_numba.upload(problem.output, self.y, self.stream)

    def run(self, stream_handle):
        self.kernel[self.blocks, BLOCK, self.stream](*self.args)

    def download(self, out, stream_handle):
        lb_numba.download(self.y, out, self.stream)
