# matmul with cp.matmul: cuBLAS SGEMM underneath. CuPy uses TF32 tensor cores for float32 only when
# CUPY_TF32=1; the variant refuses to run with it set, so this is plain fp32, like the harness's
# cuBLAS ceiling.
import os

import cupy as cp
import lb_variant
from lb_cupy import to_device, to_host, wrap


class Variant:
    run_waits = False

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        if os.environ.get("CUPY_TF32", "0") != "0":
            raise RuntimeError("CUPY_TF32 is set: cp.matmul would use TF32 tensor cores, not fp32 (unset it)")
        m, n, k = size.m, size.n, size.k
        self.stream = wrap(setup.stream)
        self.a = cp.empty((m, k), dtype=cp.float32)
        self.b = cp.empty((k, n), dtype=cp.float32)
        self.c = cp.empty((m, n), dtype=cp.float32)

    def upload(self, problem, stream):
        to_device(problem.inputs[0], self.a, self.stream)
        to_device(problem.inputs[1], self.b, self.stream)
        to_device(problem.output, self.c, self.stream)  # the poison

    def run(self, stream):
        with self.stream:
            cp.matmul(self.a, self.b, out=self.c)

    def download(self, out, stream):
        to_host(self.c, out, self.stream)
