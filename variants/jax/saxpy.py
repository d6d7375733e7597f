# saxpy in JAX: alpha * x + y, jitted. JAX arrays are immutable: the result is a new array, not y
# updated in place (a JAX user who wants y's memory back donates it: jax.jit(donate_argnums=1)).
from _jax_layer import Call


def saxpy(x, y, alpha):
    return alpha * x + y


def Variant():
    return Call("saxpy", saxpy, lambda s: [(s.n,), (s.n,)], has_alpha=True)
