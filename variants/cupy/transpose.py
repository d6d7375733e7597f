# transpose the CuPy way. Most users write `cp.ascontiguousarray(a.T)`: a.T is a view (the two
# strides swapped, no kernel, no copy) and ascontiguousarray does the work, a strided copy into a
# new C-ordered array. Here the result must land in the harness's output buffer, so the variant
# writes the same copy as `cp.copyto(self.b, self.a.T)`: the same elementwise copy kernel, into the
# array allocate() made, where ascontiguousarray would take a fresh N x M array from CuPy's pool at
# every run and still need a second copy into self.b. copyto takes its memcpy fast path only when
# both sides are contiguous in the same order (a 1 x N or M x 1 A, where the transpose is a plain
# copy); otherwise CuPy's copy kernel walks B in order and reads A with a stride of N floats: no
# shared-memory tiles, which is the difference from our kernel (cupy-raw) that this layer measures.
import cupy as cp
import lb_variant
from lb_cupy import to_device, to_host, wrap


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        m, n = size.m, size.n
        self.stream = wrap(setup.stream)
        self.a = cp.empty((m, n), dtype=cp.float32)
        self.b = cp.empty((n, m), dtype=cp.float32)
        self.a_t = self.a.T  # the view, made once: run() does only the copy

    def upload(self, problem, stream):
        to_device(problem.inputs[0], self.a, self.stream)
        to_device(problem.output, self.b, self.stream)  # the poison

    def run(self, stream):
        with self.stream:
            cp.copyto(self.b, self.a_t)

    def download(self, out, stream):
        to_host(self.b, out, self.stream)
