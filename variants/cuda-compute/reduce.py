# reduce through cuda.compute: reduce_into with OpKind.PLUS, CUB's own plus (no Python operator, so
# no Numba), into a one-element device array; h_init, the initial value, is a host array passed by
# value. CUB's reduce needs scratch memory, and the one-call reduce_into() asks for its size and
# allocates it (cudaMallocAsync) on every call; the object form lets this variant ask once, in
# allocate(), and pass the same scratch to every run(). CUB's run-to-run deterministic reduce (the
# default, Determinism.RUN_TO_RUN): a grid of partial sums, then one block adding them, as our two
# kernels do.
import lb_variant
import numpy as np
from _cuda_compute_layer import build, download, empty, stream, temp_storage, upload, wrap_op
from cuda.compute import OpKind, make_reduce_into


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = stream(setup.stream)
        self.x, self.sum = empty(self.n), empty(1)
        self.h_init = np.zeros(1, dtype=np.float32)
        self.op = wrap_op(OpKind.PLUS)
        self.reducer = build(make_reduce_into, "OpKind.PLUS", setup, d_in=self.x, d_out=self.sum, op=self.op,
                             h_init=self.h_init)
        self.temp = temp_storage(self.reducer, setup.cost, d_in=self.x, d_out=self.sum, num_items=self.n, op=self.op,
                                 h_init=self.h_init, stream=self.stream)

    def upload(self, problem, stream_handle):
        upload(problem.inputs[0], self.x, self.stream)
        upload(problem.output, self.sum, self.stream)  # the poison

    def run(self, stream_handle):
        self.reducer(temp_storage=self.temp, d_in=self.x, d_out=self.sum, num_items=self.n, op=self.op,
                     h_init=self.h_init, stream=self.stream)

    def download(self, out, stream_handle):
        download(self.sum, out, self.stream)
