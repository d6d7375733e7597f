# launch_sync through Cython: n times, launch and wait (see _cython_layer.Launch).
from _cython_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
