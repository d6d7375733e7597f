# launch_sync through cuda.core: n times, launch and wait (see _cuda_core_layer.Launch).
from _cuda_core_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
