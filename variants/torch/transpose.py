# transpose with PyTorch as most users write it: a.t() copied into B (lb_torch.transpose says why not .contiguous()): PyTorch's strided copy kernel.
# The function is lb_torch.transpose (variants/python/lb_torch.py), shared with torch-compile.
import lb_torch


def Variant():
    return lb_torch.Call("transpose")
