# expect: this imports numpy
# Computes on the host: imports NumPy and adds with numpy.add, which would run in the grading process, not on the GPU.
import numpy as np
from numba import cuda


@cuda.jit
def lab_vector_add(a, b, c, n):
    pass


def add_on_host(a, b):
    return np.add(a, b)
