# Deliberately wrong: the last element is never written, so it keeps the poison.
import numpy as np


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        self.n = size.n

    def upload(self, problem, stream):
        self.a, self.b = problem.inputs
        self.c = problem.output.copy()

    def run(self, stream):
        np.add(self.a[:-1], self.b[:-1], out=self.c[:-1])

    def download(self, out, stream):
        out[:] = self.c
