# launch_async through cuda.compute: n algorithm calls back to back (see _cuda_compute_layer.Launch).
from _cuda_compute_layer import Launch


def Variant():
    return Launch(wait_each_time=False)
