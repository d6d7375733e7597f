# vector_add through cuda.compute: a binary transform with a Python operator. No kernel text and no
# grid: CUB's DeviceTransform picks its kernel (prefetching, vectorized or bulk-copy) and launch
# shape for this GPU, and `add`, compiled by numba-cuda to LTO-IR, is linked in and inlined.
# The object form (make_binary_transform) builds once, in allocate(), or loads what an earlier process
# saved in the kernel cache folder (_cuda_compute_layer.build); run() only calls it.
import lb_variant
from _cuda_compute_layer import build, download, empty, stream, upload, wrap_op
from cuda.compute import make_binary_transform


def add(a, b):
    return a + b


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = stream(setup.stream)
        self.a, self.b, self.c = (empty(self.n) for _ in range(3))
        self.op = wrap_op(add)
        self.transform = build(make_binary_transform, "add", setup, d_in1=self.a, d_in2=self.b, d_out=self.c,
                               op=self.op)

    def upload(self, problem, stream_handle):
        upload(problem.inputs[0], self.a, self.stream)
        upload(problem.inputs[1], self.b, self.stream)
        upload(problem.output, self.c, self.stream)  # the poison

    def run(self, stream_handle):
        self.transform(d_in1=self.a, d_in2=self.b, d_out=self.c, op=self.op, num_items=self.n, stream=self.stream)

    def download(self, out, stream_handle):
        download(self.c, out, self.stream)
