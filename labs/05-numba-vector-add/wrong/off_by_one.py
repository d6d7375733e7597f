# expect: past the end
# Off-by-one bound: `i <= n` lets thread n store into c[n], one past the end (the runner's guard zone after c).
from numba import cuda


@cuda.jit
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    if i <= n:
        c[i] = a[i] + b[i]
