# expect: past the end
# No bounds check: the threads of the last block past n store into c[n], c[n+1], ... (Numba does not check indices on the GPU; the runner's guard zone after c catches it).
from numba import cuda


@cuda.jit
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    c[i] = a[i] + b[i]
