# launch_async through cuda.core: n launches back to back (see _cuda_core_layer.Launch).
from _cuda_core_layer import Launch


def Variant():
    return Launch(wait_each_time=False)
