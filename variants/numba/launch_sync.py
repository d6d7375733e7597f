# launch_sync in Numba: n times, launch and wait (see _numba_layer.Launch).
from _numba_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
