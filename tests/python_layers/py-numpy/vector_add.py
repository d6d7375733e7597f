# A CPU-only Python variant (NumPy), for the tests of the Python path: the adapter, the harness's
# timing and verification, the JSON. The arrays the harness hands over are views of its buffers.
import numpy as np


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        self.n = size.n
        self.c = np.empty(self.n, dtype=np.float32)
        setup.cost("test cost: allocate", 0.5)
        setup.session.allocations += 1  # the layer's session (_py_numpy_layer.Session), for its test

    def upload(self, problem, stream):
        self.a, self.b = problem.inputs
        self.c[:] = problem.output  # the poison

    def run(self, stream):
        np.add(self.a, self.b, out=self.c)

    def download(self, out, stream):
        out[:] = self.c
