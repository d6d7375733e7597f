"""Lab 5: vector add in Python, c = a + b, as a Numba CUDA kernel.

You write GPU code only. The runner compiles lab_vector_add with Numba and launches it with
blocks of 256 threads and ceil(n / 256) blocks, so there is at least one thread per element, and
usually a few more. Replace every #@@ line with code. As given, the kernel writes nothing, and the
check fails.

The rules: this file may hold imports of numba and math, constants (TPB = 256) and functions
decorated with @cuda.jit, nothing else. No NumPy, no host code, no calls at the top.
"""
from numba import cuda


@cuda.jit
def lab_vector_add(a, b, c, n):
    #@@ Find this thread's global index i: cuda.grid(1) (it is blockIdx.x * blockDim.x + threadIdx.x).

    #@@ Only threads with i < n may touch the arrays (the last block can have threads past the end).
    #@@ For those threads, store a[i] + b[i] into c[i].
    pass
