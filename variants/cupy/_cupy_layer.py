"""What the cupy layer's variants share besides lb_cupy: the launch-overhead variant."""
import cupy as cp
from lb_cupy import to_device, to_host, wrap


class Launch:
    """Launch overhead from CuPy: n calls of ndarray.fill on a one-element array, each one kernel
    launch (CuPy's fill kernel) with CuPy's Python-side argument handling in front of it; with
    `wait_each_time`, a stream synchronize after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, shape, stream, cost):
        self.n = shape[1]
        self.stream = wrap(stream)
        self.out = cp.empty(1, dtype=cp.float32)

    def upload(self, problem, stream):
        to_device(problem.output, self.out, self.stream)

    def run(self, stream):
        with self.stream:
            for i in range(self.n):
                self.out.fill(i + 1)
                if self.wait_each_time:
                    self.stream.synchronize()

    def download(self, out, stream):
        to_host(self.out, out, self.stream)
