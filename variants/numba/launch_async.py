# launch_async in Numba: n launches of a Python kernel back to back (see _numba_layer.Launch).
from _numba_layer import Launch


def Variant():
    return Launch(wait_each_time=False)
