# vector_add in JAX: a jitted a + b, which XLA compiles to one elementwise kernel writing a new array.
import jax.numpy as jnp
from _jax_layer import Call


def vector_add(a, b):
    return jnp.add(a, b)


def Variant():
    return Call("vector_add", vector_add, lambda s: [(s.n,), (s.n,)])
