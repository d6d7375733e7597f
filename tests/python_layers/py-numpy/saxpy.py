# saxpy through NumPy, warning as a GPU library does: a performance warning at every run (as Numba's
# "Grid size 1 will likely result in GPU under-utilization due to low occupancy." at every small
# launch), which the adapter keeps in the case's notes (lb_shared.note_warnings), once per case and
# off the console; and a warning of another kind once, which the console shows as Python shows it.
import warnings

import lb_shared
import numpy as np


class TestPerformanceWarning(UserWarning):
    """Stands in for numba's NumbaPerformanceWarning, so that the test needs no Numba."""


lb_shared.note_warnings(TestPerformanceWarning)


class Variant:
    run_waits = False

    def allocate(self, size, setup):
        warnings.warn("py-numpy saxpy: a warning that is no performance advice", RuntimeWarning)

    def upload(self, problem, stream):
        (self.x,) = problem.inputs
        self.y = problem.output.copy()
        self.alpha = np.float32(problem.alpha)

    def run(self, stream):
        warnings.warn(TestPerformanceWarning("saxpy this small leaves the machine idle"))
        self.y = self.alpha * self.x + self.y

    def download(self, out, stream):
        out[:] = self.y
