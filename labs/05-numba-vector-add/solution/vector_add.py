"""Lab 5 reference solution: one thread per element, in Numba."""
from numba import cuda


@cuda.jit
def lab_vector_add(a, b, c, n):
    # Where this thread sits among all the threads of the grid: cuda.grid(1) is
    # blockIdx.x * blockDim.x + threadIdx.x, computed by Numba in 64 bits, so it does not wrap for
    # large n as a 32-bit product could.
    i = cuda.grid(1)
    # The grid is rounded up to whole blocks, so the last block may have threads past the end of
    # the arrays. They must do nothing: Numba does not check indices on the GPU, and a store past
    # n writes someone else's memory (here, the runner's guard zone after c).
    if i < n:
        # Neighbouring threads touch neighbouring floats, so each warp's loads and stores combine
        # into a few wide memory transactions (coalescing). The kernel moves 12 bytes per addition:
        # memory bandwidth, not arithmetic, sets its speed.
        c[i] = a[i] + b[i]
