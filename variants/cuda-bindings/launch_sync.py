# launch_sync through cuda.bindings: n times, launch and wait (see _cuda_bindings_layer.Launch).
from _cuda_bindings_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
