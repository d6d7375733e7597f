# reduce with PyTorch as most users write it: torch.sum(x, 0, out=total): PyTorch's reduction kernel into a 0-d tensor; the sum stays on the device.
# The function is lb_torch.reduce (variants/python/lb_torch.py), shared with torch-compile.
import lb_torch


def Variant():
    return lb_torch.Call("reduce")
