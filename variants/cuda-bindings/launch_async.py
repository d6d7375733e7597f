# launch_async through cuda.bindings: n launches back to back (see _cuda_bindings_layer.Launch).
from _cuda_bindings_layer import Launch


def Variant():
    return Launch(wait_each_time=False)
