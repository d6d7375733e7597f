# launch_sync from JAX: n times, call and wait, of a jitted x + 1 (see _jax_layer.Launch).
from _jax_layer import Launch


def Variant():
    return Launch(wait_each_time=True)
