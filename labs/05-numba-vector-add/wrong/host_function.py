# expect: a plain Python function would run on the host
# The "kernel" is a plain Python function with no @cuda.jit: it would run on the host, element by element.
from numba import cuda


def lab_vector_add(a, b, c, n):
    for i in range(n):
        c[i] = a[i] + b[i]
