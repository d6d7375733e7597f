# launch_async through Cython: n wrapper calls back to back (see _cython_layer.Launch).
from _cython_layer import Launch


def Variant():
    return Launch(wait_each_time=False)
