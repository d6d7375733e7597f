# launch_sync through cuda.compute: n times, call and wait (see _cuda_compute_layer.Launch).
from _cuda_compute_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
