# saxpy as a CUDA ufunc: saxpy(alpha, x, y) = alpha x + y, written into y itself (out=y: each
# thread reads its y[i] before writing it, so an elementwise kernel may alias input and output).
# alpha is a one-element device array, which the ufunc broadcasts to n with a zero stride (a view,
# no copy): a Python scalar would be copied to the device through a new allocation at every call.
import lb_numba
import lb_variant
import numpy as np
from _numba_vectorize_layer import first_call


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        n = size.n
        self.stream = lb_numba.stream(setup.stream)
        self.saxpy = setup.session.ufunc("saxpy", setup.cost)
        self.alpha = lb_numba.device_array(1)
        self.x, self.y = (lb_numba.device_array(n) for _ in range(2))
        lb_numba.zero(self.stream, self.alpha, self.x, self.y)
        first_call("@vectorize saxpy", self.saxpy, lambda: self.run(setup.stream), setup.cost)

    def upload(self, problem, stream_handle):
        lb_numba.upload(np.array([problem.alpha], dtype=np.float32), self.alpha, self.stream)
        lb_numba.upload(problem.inputs[0], self.x, self.stream)
        lb_numba.upload(problem.output, self.y, self.stream)

    def run(self, stream_handle):
        self.saxpy(self.alpha, self.x, self.y, out=self.y, stream=self.stream)

    def download(self, out, stream_handle):
        lb_numba.download(self.y, out, self.stream)
