# launch_async through a CUDA ufunc: n ufunc calls on one-element device arrays, back to back: what
# one launch costs when Numba writes and launches the kernel (see _numba_vectorize_layer.Launch).
from _numba_vectorize_layer import Launch


def Variant():
    return Launch(wait_each_time=False)
