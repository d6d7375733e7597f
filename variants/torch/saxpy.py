# saxpy with PyTorch as most users write it: y.add_(x, alpha=a), in place: one fused multiply-add kernel, y read and written.
# The function is lb_torch.saxpy (variants/python/lb_torch.py), shared with torch-compile.
import lb_torch


def Variant():
    return lb_torch.Call("saxpy")
