# matmul in Triton: matmul_kernel: Triton's tutorial matmul in fp32 (input_precision="ieee"), autotuned per shape.
# The kernel and its launch are in _triton_layer.py (with the compile and autotune costs).
from _triton_layer import matmul as Variant  # noqa: F401 (the adapter reads Variant)
