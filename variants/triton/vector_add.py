# vector_add in Triton: vector_add_kernel: one program adds BLOCK (1024) elements, Triton's first tutorial.
# The kernel and its launch are in _triton_layer.py (with the compile and autotune costs).
from _triton_layer import vector_add as Variant  # noqa: F401 (the adapter reads Variant)
