# vector_add with PyTorch as most users write it: torch.add(a, b, out=c): PyTorch's elementwise add kernel (vectorized loads, its own launch shape).
# The function is lb_torch.vector_add (variants/python/lb_torch.py), shared with torch-compile.
import lb_torch


def Variant():
    return lb_torch.Call("vector_add")
