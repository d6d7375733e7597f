# launch_sync through a CUDA ufunc: n times, one ufunc call and wait (see _numba_vectorize_layer.Launch).
from _numba_vectorize_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
