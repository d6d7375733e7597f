# expect-check: pass
# expect-grade: graded 60 0 25
# Reads its output to skip work: an element that already holds a number (not NaN) is taken as done. Every check size starts from poison, so it passes; the grade re-poisons the output before every timed sample, so it always adds, and pays for reading c too.
from numba import cuda


@cuda.jit
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        if c[i] == c[i]:  # not NaN: "already computed"
            return
        c[i] = a[i] + b[i]
