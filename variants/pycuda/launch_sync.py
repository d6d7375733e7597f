# launch_sync through PyCUDA: n times, launch and wait (see _pycuda_layer.Launch).
from _pycuda_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
