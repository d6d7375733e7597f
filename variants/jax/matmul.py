# matmul in JAX: jnp.matmul with Precision.HIGHEST. On an NVIDIA GPU JAX's default precision for
# fp32 products is TF32 (tensor cores, a 10-bit mantissa); HIGHEST asks for full fp32, which XLA
# gives to cuBLAS (or its own Triton GEMM) as an fp32 product.
import jax
import jax.numpy as jnp
from _jax_layer import Call


def matmul(a, b):
    return jnp.matmul(a, b, precision=jax.lax.Precision.HIGHEST)


def Variant():
    return Call("matmul", matmul, lambda s: [(s.m, s.k), (s.k, s.n)])
