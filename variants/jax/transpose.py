# transpose in JAX: jnp.transpose, jitted. In NumPy a.T is a view; a jitted function's result is a
# new row-major array, so XLA writes the transposed copy (its own transpose kernel, tiled).
import jax.numpy as jnp
from _jax_layer import Call


def transpose(a):
    return jnp.transpose(a)


def Variant():
    return Call("transpose", transpose, lambda s: [(s.m, s.n)])
