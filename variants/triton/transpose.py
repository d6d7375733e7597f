# transpose in Triton: transpose_kernel: a 64 x 64 tile per program, tl.trans between the load and the store.
# The kernel and its launch are in _triton_layer.py (with the compile and autotune costs).
from _triton_layer import transpose as Variant  # noqa: F401 (the adapter reads Variant)
