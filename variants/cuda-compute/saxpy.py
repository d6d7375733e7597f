# saxpy through cuda.compute: a binary transform of (x, y) written into y, in place as in BLAS (CUB's
# DeviceTransform allows an output to be exactly one of its inputs). alpha changes per problem, and
# an operator's closure over a Python float is compiled in as a constant: a rebuild for each alpha,
# in float64. A closure over a *device array* is runtime state instead (cuda.compute 1.1.1's
# stateful operators): cuda.compute rewrites the operator's source to take the array as a parameter
# (so it must be a `def` in a file, not a lambda), compiles that once, and passes the array's pointer
# with each call. So alpha lives in a one-element device array, written in upload().
import lb_variant
import numpy as np
from _cuda_compute_layer import build, download, empty, stream, upload, wrap_op
from cuda.compute import make_binary_transform


def saxpy_op(alpha):
    def saxpy(x, y):
        return alpha[0] * x + y
    return saxpy


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = stream(setup.stream)
        self.x, self.y, self.alpha = empty(self.n), empty(self.n), empty(1)
        self.op = wrap_op(saxpy_op(self.alpha))
        self.transform = build(make_binary_transform, "saxpy (alpha as state)", setup,
                               d_in1=self.x, d_in2=self.y, d_out=self.y, op=self.op)

    def upload(self, problem, stream_handle):
        upload(np.array([problem.alpha], dtype=np.float32), self.alpha, self.stream)
        upload(problem.inputs[0], self.x, self.stream)
        upload(problem.output, self.y, self.stream)  # y's starting values

    def run(self, stream_handle):
        self.transform(d_in1=self.x, d_in2=self.y, d_out=self.y, op=self.op, num_items=self.n, stream=self.stream)

    def download(self, out, stream_handle):
        download(self.y, out, self.stream)
